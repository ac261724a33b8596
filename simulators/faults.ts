// The fault drills' queue, shared by the simulated SQL Server and the simulated IBM i: tests arm
// faults; the next request or statement whose text matches takes one; a mid-result fault that found
// no rows to strike goes back to wait for the next.
/** `governor`: the IBM i query governor refuses the statement before it runs (SQL0666). */
export type FaultKind = 'drop' | 'stall' | 'fail-mid-result' | 'drop-mid-result' | 'governor';
export interface Fault {
  kind: FaultKind;
  ms: number;
  /** Strikes only a request or statement whose text matches. */
  matching?: RegExp;
}

/** Whether the fault strikes once the work ran, while its rows are on their way. */
export const isMidResult = (fault: Fault | undefined): fault is Fault =>
  fault?.kind === 'fail-mid-result' || fault?.kind === 'drop-mid-result';

export class FaultQueue {
  private readonly faults: Fault[] = [];

  inject(kind: FaultKind, times: number, ms = 0, matching?: RegExp): void {
    for (let i = 0; i < times; i++) this.faults.push({ kind, ms, matching });
  }

  /** The first armed fault meant for this text, taken off the queue. */
  take(text: string): Fault | undefined {
    const at = this.faults.findIndex((f) => !f.matching || f.matching.test(text));
    return at === -1 ? undefined : this.faults.splice(at, 1)[0];
  }

  putBack(fault: Fault): void {
    this.faults.unshift(fault);
  }

  /** Faults armed that have not struck yet. */
  get pending(): number {
    return this.faults.length;
  }
}
