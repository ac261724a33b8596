// The open pipeline's parts are written by reads (the whole pipeline, or its copies or verify after an
// event), by actions' answers and by pushes, whose answers arrive in any order. A read's answer shows the
// engine as it was when the read was sent: when an action's answer or a push was shown for a part after
// that, the read is older than what shows and is dropped for that part (a Start answered "running", then
// a read sent before it answering "configured", disabled the buttons of a running pipeline).
//
// Parts are kept per engine, pipeline and agent: an answer for one pipeline says nothing of another's
// reads (two engines can have pipelines of the same ids).

/** One agent of one engine's pipeline: what the Pipelines screen has open, or an agent in its picker. */
export interface RunAddress {
  profileId: string;
  pipelineId: string;
  agentId: string;
}

/** An agent's backlog, copies or verify, or its state in the engine's list. */
export type RunPart = `${'backlog' | 'snapshots' | 'verify' | 'agent'} ${string}/${string}/${string}`;

/** Whether two addresses name the same engine, pipeline and agent. */
export const sameAddress = (a: RunAddress | undefined, b: RunAddress | undefined): boolean =>
  a !== undefined &&
  b !== undefined &&
  a.profileId === b.profileId &&
  a.pipelineId === b.pipelineId &&
  a.agentId === b.agentId;

export const runPart = (kind: 'backlog' | 'snapshots' | 'verify' | 'agent', at: RunAddress): RunPart =>
  `${kind} ${at.profileId}/${at.pipelineId}/${at.agentId}`;

let sent = 0;
const shown = new Map<RunPart, number>();

/** Taken when a read is sent: its place among the answers. */
export function readSent(): number {
  return ++sent;
}

/** Whether a read sent at `at` is newer than what `part` shows; when it is, it is what shows now. */
export function readIsNewer(part: RunPart, at: number): boolean {
  if (at <= (shown.get(part) ?? 0)) return false;
  shown.set(part, at);
  return true;
}

/** An action's answer or a push is shown for `parts`: every read sent before now is older for them. */
export function shownNow(...parts: RunPart[]): void {
  const at = ++sent;
  for (const part of parts) shown.set(part, at);
}
