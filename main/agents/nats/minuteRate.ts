// Events counted over the last minute, as a rate: the cockpit's events per second, and the time a
// backlog takes at the rate measured.
const WINDOW_MS = 60_000;

export class MinuteRate {
  private readonly counts: { at: number; n: number }[] = [];

  constructor(private readonly now: () => number = Date.now) {}

  count(n: number): void {
    const now = this.now();
    if (n > 0) this.counts.push({ at: now, n });
    while (this.counts[0] && now - this.counts[0].at > WINDOW_MS) this.counts.shift();
  }

  /** Events per second over the window; 0 when none came. */
  perSecond(): number {
    this.count(0);
    const first = this.counts[0];
    if (!first) return 0;
    const seconds = Math.max(1, (this.now() - first.at) / 1000);
    return this.counts.reduce((n, c) => n + c.n, 0) / seconds;
  }

  /** Minutes to go through `waiting` events at the rate measured; null before anything was counted. */
  minutesLeft(waiting: number): number | null {
    if (waiting === 0) return 0;
    const rate = this.perSecond();
    return rate > 0 ? waiting / rate / 60 : null;
  }
}
