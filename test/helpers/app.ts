// The app's main-process services over a fresh data folder, with the local engine on a free port.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sandboxMode } from '../../main/sandbox/mode';
import { startAppServices, type AppServices } from '../../main/app/services';
import { noteAnswer, secretsIn, watchedLog, watchFolder } from '../setup/secretNotes';

export async function startTestApp(
  dataDir = mkdtempSync(join(tmpdir(), 'cdc-app-')),
): Promise<AppServices & { dataDir: string }> {
  watchFolder(dataDir);
  const services = await startAppServices({
    mode: 'web',
    appVersion: '0.0.0-test',
    dataDir,
    log: watchedLog,
    enginePort: 0,
    loadSandbox: async () => sandboxMode(),
  });
  const dispatch = services.dispatch;
  // The app's answers to direct calls (no HTTP in between) go to the secret scan too.
  services.dispatch = async (method, input) => {
    const answer = await dispatch(method, input);
    noteAnswer(String(method), secretsIn(input), JSON.stringify(answer));
    return answer;
  };
  // What main pushes (to the window, to the browser's stream) is an answer too.
  services.deps.fleet.subscribe((message) => noteAnswer('push', [], JSON.stringify(message)));
  return { ...services, dataDir };
}

/** A contract call as the renderer makes it: its value, or the refusal's message thrown. */
export async function callApp(a: AppServices, method: string, input: unknown = {}): Promise<unknown> {
  const answer = await a.dispatch(method, input);
  if (!answer.ok) throw new Error(answer.error.message);
  return answer.value;
}
