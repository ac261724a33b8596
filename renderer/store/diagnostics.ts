import { useStore } from './index';
import { download, fromBase64 } from '../platform/download';
import type { DiagnosticsSliceState } from './state';

const set = (change: Partial<DiagnosticsSliceState['diagnostics']>) =>
  useStore.setState((s) => ({ diagnostics: { ...s.diagnostics, ...change } }));

/** Builds a bundle in main and hands it to the browser (or Electron) as a download. */
export async function saveDiagnostics(profileId = 'local'): Promise<void> {
  const { api } = useStore.getState();
  if (!api) return;
  set({ busy: true, error: undefined, saved: undefined });
  try {
    const { fileName, base64 } = await api.createDiagnostics({ profileId });
    download(fileName, fromBase64(base64), 'application/zip');
    set({ busy: false, saved: fileName });
  } catch (error) {
    set({ busy: false, error: error instanceof Error ? error.message : 'The bundle could not be made.' });
  }
}

/** Reads a bundle the user picked; main parses it, so nothing in it is trusted here. */
export async function openDiagnostics(file: File): Promise<void> {
  const { api } = useStore.getState();
  if (!api) return;
  set({ busy: true, error: undefined });
  try {
    const dataUrl = await new Promise<string>((resolve, reject) => {
      const reader = new FileReader();
      reader.onload = () => resolve(String(reader.result));
      reader.onerror = () => reject(new Error('The file could not be read.'));
      reader.readAsDataURL(file);
    });
    const view = await api.openDiagnostics({ base64: dataUrl.slice(dataUrl.indexOf(',') + 1) });
    set({ busy: false, view, openedName: file.name });
  } catch (error) {
    set({
      busy: false,
      view: undefined,
      error: error instanceof Error ? error.message : 'The bundle could not be opened.',
    });
  }
}
