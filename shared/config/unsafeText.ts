// Characters no text field takes, whatever the field: C0 and C1 control characters (NUL included) and
// DEL, which a name, a host or a password never needs and which can make two stored values name the same
// server (`"sandbox-ibmi\u0000"` reached the same host and slipped past the one-sync-library rule);
// and lone UTF-16 surrogates, which are not text at all. Checked at every boundary before any schema.
import { pointerOf, type Problem } from './problems';

// eslint-disable-next-line no-control-regex -- control characters are what this looks for
const CONTROL = /[\u0000-\u001F\u007F-\u009F]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const MAX_DEPTH = 32;

const codePoint = (c: string) => `U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;

function problemOf(text: string, path: readonly PropertyKey[]): Problem | undefined {
  const control = CONTROL.exec(text);
  const lone = control ? null : LONE_SURROGATE.exec(text);
  const found = control ?? lone;
  if (!found) return undefined;
  const field = String(path.at(-1) ?? 'the value');
  // The value itself is never printed: it may be a password.
  const what = control
    ? `a control character (${codePoint(found[0])})`
    : `a lone surrogate (${codePoint(found[0])})`;
  const rule = 'text without control characters (U+0000–U+001F, U+007F–U+009F) or lone surrogates';
  return {
    pointer: pointerOf('', path),
    received: `${what} at position ${found.index + 1}`,
    rule,
    message: `${field} must be ${rule}; got ${what} at position ${found.index + 1}.`,
  };
}

/** Every string (and object key) in a parsed JSON value that holds a character no field takes. */
export function unsafeText(value: unknown, path: PropertyKey[] = []): Problem[] {
  if (typeof value === 'string') {
    const problem = problemOf(value, path);
    return problem ? [problem] : [];
  }
  if (typeof value !== 'object' || value === null || path.length >= MAX_DEPTH) return [];
  const entries = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value);
  return entries.flatMap(([key, v]) => {
    const keyProblem = typeof key === 'string' ? problemOf(key, [...path, key]) : undefined;
    return keyProblem ? [keyProblem] : unsafeText(v, [...path, key]);
  });
}
