// A read asked for by a burst of events runs twice (once now, once after), never once per event, and
// never two at a time; with a spacing, the second waits for it.
import { describe, expect, it } from 'vitest';
import { coalesced } from '../../shared/coalesce';
import { until } from '../helpers/until';

describe('coalesced', () => {
  it('turns a burst of asks into two reads, one at a time', async () => {
    let reads = 0;
    let running = 0;
    let most = 0;
    const read = coalesced(async () => {
      reads += 1;
      running += 1;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 20));
      running -= 1;
    });
    await Promise.all(Array.from({ length: 40 }, () => read()));
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(reads).toBe(2);
    expect(most).toBe(1);
  });

  it('waits the spacing before the read asked for meanwhile', async () => {
    const at: number[] = [];
    const read = coalesced(async () => void at.push(Date.now()), 200);
    void read();
    void read();
    await until('the second read', () => at.length === 2);
    expect((at[1] ?? 0) - (at[0] ?? 0)).toBeGreaterThanOrEqual(190);
  });
});
