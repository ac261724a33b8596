// The one entry point for contract calls from outside (IPC or HTTP): check the method name, parse the
// input with its schema, run the handler, answer with an envelope. Nothing thrown crosses the boundary.
import { contract, isMethodName, type Envelope } from '../../shared/api';
import { pointerOf } from '../../shared/config/problems';
import { unsafeText } from '../../shared/config/unsafeText';
import { UserError, type Deps, type Handlers } from './handlers';
import type { Log } from '../platform/log';

export type Dispatch = (method: unknown, input: unknown) => Promise<Envelope>;

export function createDispatch(handlers: Handlers, deps: Deps, log: Log): Dispatch {
  return async (method, input) => {
    if (!isMethodName(method)) {
      log.warn('api.unknown_method', {
        method: typeof method === 'string' ? method.slice(0, 64) : typeof method,
      });
      return { ok: false, error: { code: 'unknown_method', message: 'There is no such API method.' } };
    }
    const spec = contract[method];
    const unsafe = unsafeText(input);
    if (unsafe.length > 0) {
      log.warn('api.invalid_input', { method, paths: unsafe.map((p) => p.pointer || '/').join(' ') });
      const detail = unsafe.map((p) => `${p.pointer || '/'}: ${p.message}`).join('; ');
      return { ok: false, error: { code: 'invalid_input', message: `${method}: ${detail}` } };
    }
    const parsed = spec.input.safeParse(input);
    if (!parsed.success) {
      // Only the failing paths are logged, never the payload: it may hold a password.
      const paths = parsed.error.issues.map((i) => pointerOf('', i.path) || '/').join(' ');
      log.warn('api.invalid_input', { method, paths });
      const detail = parsed.error.issues
        .map((i) => `${pointerOf('', i.path) || '/'}: ${i.message}`)
        .join('; ');
      return { ok: false, error: { code: 'invalid_input', message: `${method}: ${detail}` } };
    }
    try {
      const handler = handlers[method] as (input: unknown, deps: Deps) => unknown;
      const value = spec.output.parse(await handler(parsed.data, deps));
      return { ok: true, value };
    } catch (error) {
      if (error instanceof UserError)
        return { ok: false, error: { code: 'invalid_input', message: error.message } };
      log.warn('api.failed', { method, error: error instanceof Error ? error.name : 'unknown' });
      return {
        ok: false,
        error: { code: 'internal', message: `${method} failed inside the app; see the log.` },
      };
    }
  };
}
