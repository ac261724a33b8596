// Where reading ends when the configuration names a stop point (`stopAt`): a version, or the last
// transaction committed at or before a time. Until a time has passed on the server's clock, a batch
// reads up to the version current then (every commit up to it came before the time); once it has,
// the stop is that version for good. Each batch's upper bound is cut there, so nothing committed
// after the point is read.
import sql from 'mssql';
import type { ChangeTrackingConfiguration } from '../../../shared/agents/changeTracking';
import { localTimeOf, StartUnavailable } from '../startPoint';
import { asWritten, CLOCK, commitClock, parseCtPoint, type CtStartPoint } from './startAt';
import type { RunQuery } from './structure';

export interface StopCap {
  /** The highest version this batch may read. */
  version: bigint;
  /** The stop point itself (not a time still ahead): reading up to it ends the pipeline. */
  final: boolean;
}

export class StopPoint {
  private fixed: bigint | null = null;
  private offsetMinutes: number | null = null;
  readonly said: string;

  private constructor(private readonly point: CtStartPoint) {
    this.said = point.said;
  }

  static of(configuration: ChangeTrackingConfiguration): StopPoint | undefined {
    return configuration.stopAt === undefined
      ? undefined
      : new StopPoint(parseCtPoint(configuration.stopAt, 'stopAt'));
  }

  /** Where this batch's reading is cut: the stop's version, or for a time ahead, the version now. */
  async cap(run: RunQuery): Promise<StopCap> {
    const { point } = this;
    if (point.kind === 'version') return { version: point.version, final: true };
    if (this.fixed !== null) return { version: this.fixed, final: true };
    this.offsetMinutes ??= await commitClock(run, `stopAt ${this.said}`);
    const { local } = localTimeOf(point.text, this.offsetMinutes, CLOCK);
    const [row] = await run<{ now: Date; current: string | number | null; v: string | number | null }>(
      'SELECT SYSDATETIME() AS now, CHANGE_TRACKING_CURRENT_VERSION() AS current, ' +
        '(SELECT MAX(commit_ts) FROM sys.dm_tran_commit_table WHERE commit_time <= @t) AS v',
      // Cut to the millisecond, down, as a start is: a commit in the cut-off part is not read.
      (r) => r.input('t', sql.DateTime2(3), asWritten(local)),
    );
    if (!row || row.current === null) throw new StartUnavailable('Change Tracking is off for the database.');
    if (row.now.getTime() <= asWritten(local).getTime())
      return { version: BigInt(row.current), final: false };
    this.fixed = row.v === null ? 0n : BigInt(row.v);
    return { version: this.fixed, final: true };
  }
}
