// Readiness reports as PDF in the desktop app: the page loaded in a hidden window of its own (no
// script, no preload, nothing reachable from it) and printed by Chromium, as the browser would print it.
import { BrowserWindow } from 'electron';

export async function printHtmlToPdf(html: string): Promise<Uint8Array> {
  const window = new BrowserWindow({
    show: false,
    webPreferences: { javascript: false, sandbox: true, contextIsolation: true, nodeIntegration: false },
  });
  try {
    await window.loadURL(`data:text/html;charset=utf-8,${encodeURIComponent(html)}`);
    const pdf = await window.webContents.printToPDF({ printBackground: true, pageSize: 'A4' });
    return new Uint8Array(pdf);
  } finally {
    window.destroy();
  }
}
