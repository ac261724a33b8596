// Where reading ends when the configuration names a stop point (`stopAt`): a journal position (that
// entry the last one read) or a time (entries written after it are not read). The cut falls on the
// entries themselves, so a commit cycle whose commit entry lies beyond the point stays open and is
// not applied, and one committed before it is applied whole. A time still ahead on the IBM i's clock
// cuts nothing yet; once the clock has passed it (asked before the read, so every entry up to it is
// already written), reading to the journal's end reaches it.
import type { JournalConfiguration } from '../../../shared/agents/journal';
import { cellText, type IbmiConnection } from '../../../lib/ibmi/connection';
import { StartUnavailable } from '../startPoint';
import { positionOf, type JournalEntryRow } from './assemble';
import type { JournalPosition, TablePosition } from './position';
import { chainIndex, type ReceiverInfo } from './reader';
import { parseStartAt, type StartPoint } from './startAt';
import { sortableLocal } from './values';

type Order = (a: JournalPosition, b: JournalPosition) => number;

export class JournalStop {
  /** A time's stop holds for good once the IBM i's clock has passed it. */
  private passed = false;
  readonly said: string;

  private constructor(private readonly point: StartPoint) {
    this.said = point.said;
  }

  static of(configuration: JournalConfiguration, utcOffsetMinutes: number): JournalStop | undefined {
    const { stopAt } = configuration;
    return stopAt === undefined
      ? undefined
      : new JournalStop(parseStartAt(stopAt, utcOffsetMinutes, 'stopAt'));
  }

  /** Before a batch's read: whether a time's stop is behind the IBM i's clock yet. */
  async beforeRead(c: IbmiConnection): Promise<void> {
    if (this.point.kind !== 'time' || this.passed) return;
    const [row] = await c.query('VALUES CURRENT TIMESTAMP');
    const now = sortableLocal(cellText(row ? Object.values(row)[0] : '').trim());
    this.passed = now > this.point.local;
  }

  /** A position names one receiver: a journal whose chain lacks it cannot be stopped by it. */
  refuseOutside(journal: string, chain: readonly ReceiverInfo[], tables: readonly string[]): void {
    const { point } = this;
    if (point.kind !== 'position' || chainIndex(chain, point.position) >= 0) return;
    throw new StartUnavailable(
      `stopAt ${point.said} names receiver ${point.position.library}/${point.position.receiver}, which is not in ` +
        `the receiver chain of journal ${journal} (tables ${tables.slice(0, 5).join(', ')}): a position stops the ` +
        'tables of its own journal only. Give a time to stop tables of several journals.',
    );
  }

  /** How many of `chunk`'s entries lie at or before the point (they come in journal order). */
  keptOf(chunk: readonly JournalEntryRow[], order: Order): number {
    const { point } = this;
    const beyond = chunk.findIndex((e) =>
      point.kind === 'position'
        ? order(positionOf(e), point.position) > 0
        : sortableLocal(e.timestamp) > point.local,
    );
    return beyond < 0 ? chunk.length : beyond;
  }

  /**
   * Where a table with nothing pending stands at most once reading reached the stop: the position
   * itself, or just before the first entry read beyond the time. Null when not known (a time, with
   * no entry of these files after it: the journal's end then stands, every entry of it before the time).
   */
  cap(firstBeyond: JournalEntryRow | undefined): TablePosition | null {
    const { point } = this;
    if (point.kind === 'position') return { restart: point.position, applied: point.position };
    if (!firstBeyond) return null;
    const restart = positionOf(firstBeyond);
    return { restart, applied: { ...restart, sequence: restart.sequence - 1 } };
  }

  /**
   * Whether a journal read to `end` (its last entry before the read), the read exhausted, has reached
   * the stop: an entry beyond it was seen, or the journal's end is at or past the position, or the
   * clock had passed the time before the read began.
   */
  reached(sawBeyond: boolean, exhausted: boolean, end: JournalPosition | null, order: Order): boolean {
    if (sawBeyond) return true;
    if (!exhausted) return false;
    const { point } = this;
    if (point.kind === 'time') return this.passed;
    return end !== null && order(end, point.position) >= 0;
  }
}
