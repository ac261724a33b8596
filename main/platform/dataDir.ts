import { homedir } from 'node:os';
import { join } from 'node:path';

/** Where the app keeps its data when Electron does not say: the OS's usual per-user folder. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string {
  if (env.CDC_ADMIN_DATA) return env.CDC_ADMIN_DATA;
  if (platform === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'CDC Admin');
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'CDC Admin');
  return join(env.XDG_DATA_HOME ?? join(homedir(), '.local', 'share'), 'cdc-admin');
}

/** The one folder of the data folder that replicas may be written in (the default SQLite replicas). */
export const REPLICAS_FOLDER = 'replicas';
