// The application menu as data, so it can be checked without Electron. Roles give the platform's own
// behaviour (copy, paste, zoom, close); the actions are the app's.
export interface MenuActions {
  showAbout(): void;
  openLogsFolder(): void;
}

type Role =
  | 'hide'
  | 'quit'
  | 'close'
  | 'undo'
  | 'redo'
  | 'cut'
  | 'copy'
  | 'paste'
  | 'selectAll'
  | 'reload'
  | 'resetZoom'
  | 'zoomIn'
  | 'zoomOut'
  | 'togglefullscreen'
  | 'minimize';

export interface MenuEntry {
  label?: string;
  role?: Role;
  type?: 'separator';
  accelerator?: string;
  click?: () => void;
  submenu?: MenuEntry[];
}

export function menuTemplate(actions: MenuActions, platform: string, appName: string): MenuEntry[] {
  const about: MenuEntry = { label: `About ${appName}`, click: actions.showAbout };
  const mac = platform === 'darwin';
  const appMenu: MenuEntry[] = mac
    ? [{ label: appName, submenu: [about, { type: 'separator' }, { role: 'hide' }, { role: 'quit' }] }]
    : [];
  return [
    ...appMenu,
    {
      label: 'File',
      submenu: [
        { label: 'Open Logs Folder', click: actions.openLogsFolder },
        { type: 'separator' },
        { role: mac ? 'close' : 'quit' },
      ],
    },
    {
      label: 'Edit',
      submenu: [
        { role: 'undo' },
        { role: 'redo' },
        { type: 'separator' },
        { role: 'cut' },
        { role: 'copy' },
        { role: 'paste' },
        { role: 'selectAll' },
      ],
    },
    {
      label: 'View',
      submenu: [
        { role: 'reload' },
        { role: 'resetZoom' },
        { role: 'zoomIn' },
        { role: 'zoomOut' },
        { type: 'separator' },
        { role: 'togglefullscreen' },
      ],
    },
    { label: 'Window', submenu: [{ role: 'minimize' }, { role: 'close' }] },
    {
      label: 'Help',
      submenu: mac ? [{ label: 'Open Logs Folder', click: actions.openLogsFolder }] : [about],
    },
  ];
}

export function aboutText(appVersion: string, versions: Record<string, string | undefined>): string {
  const lines = [
    `Version ${appVersion}`,
    `Electron ${versions.electron ?? 'unknown'}`,
    `Chromium ${versions.chrome ?? 'unknown'}`,
    `Node.js ${versions.node ?? 'unknown'}`,
    `V8 ${versions.v8 ?? 'unknown'}`,
  ];
  return lines.join('\n');
}
