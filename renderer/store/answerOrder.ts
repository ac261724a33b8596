// The open pipeline's parts are written by reads (the whole pipeline, or its copies or verify after an
// event), by actions' answers and by pushes, whose answers arrive in any order. A read's answer shows the
// engine as it was when the read was sent: when an action's answer or a push was shown for a part after
// that, the read is older than what shows and is dropped for that part (a Start answered "running", then
// a read sent before it answering "configured", disabled the buttons of a running pipeline).

export type RunPart = 'agents' | 'backlog' | 'snapshots' | 'verify';

let sent = 0;
const shown: Record<RunPart, number> = { agents: 0, backlog: 0, snapshots: 0, verify: 0 };

/** Taken when a read is sent: its place among the answers. */
export function readSent(): number {
  return ++sent;
}

/** Whether a read sent at `at` is newer than what `part` shows; when it is, it is what shows now. */
export function readIsNewer(part: RunPart, at: number): boolean {
  if (at <= shown[part]) return false;
  shown[part] = at;
  return true;
}

/** An action's answer or a push is shown for `parts`: every read sent before now is older for them. */
export function shownNow(...parts: RunPart[]): void {
  const at = ++sent;
  for (const part of parts) shown[part] = at;
}
