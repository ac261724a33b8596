// The app's main-process services over a fresh data folder, with the local engine on a free port.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLog } from '../../main/log';
import { startAppServices, type AppServices } from '../../main/services';

export async function startTestApp(
  dataDir = mkdtempSync(join(tmpdir(), 'cdc-app-')),
): Promise<AppServices & { dataDir: string }> {
  const services = await startAppServices({
    mode: 'web',
    appVersion: '0.0.0-test',
    dataDir,
    log: silentLog,
    enginePort: 0,
  });
  return { ...services, dataDir };
}
