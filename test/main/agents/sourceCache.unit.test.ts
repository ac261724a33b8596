// The engine keeps one source open per agent for its reads: reused while the settings stay the same,
// opened again when they change or after a failure, closed when unused and when the engine closes.
import { describe, expect, it, vi } from 'vitest';
import { SourceCache } from '../../../main/agents/sourceCache';

class FakeSource {
  static opened = 0;
  closed = false;
  running = 0;
  maxRunning = 0;
  readonly n = ++FakeSource.opened;
  async close(): Promise<void> {
    this.closed = true;
  }
  async read(ms = 5): Promise<number> {
    if (this.closed) throw new Error('closed');
    this.running++;
    this.maxRunning = Math.max(this.maxRunning, this.running);
    await new Promise((resolve) => setTimeout(resolve, ms));
    this.running--;
    return this.n;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('SourceCache', () => {
  it('reuses the source while the settings are the same, and runs reads on it one at a time', async () => {
    const cache = new SourceCache<FakeSource>();
    const opened: FakeSource[] = [];
    const open = async () => {
      const s = new FakeSource();
      opened.push(s);
      return s;
    };
    const settings = { host: 'h', password: 'p' };
    const answers = await Promise.all(
      [1, 2, 3].map(() => cache.use('p1/a', settings, open, (s) => s.read())),
    );
    expect(opened).toHaveLength(1);
    expect(new Set(answers).size).toBe(1);
    expect(opened[0]?.maxRunning).toBe(1);
    await cache.closeAll();
    expect(opened[0]?.closed).toBe(true);
    expect(cache.size).toBe(0);
  });

  it('opens a new source when the settings change, and closes the old one', async () => {
    const cache = new SourceCache<FakeSource>();
    const open = async () => new FakeSource();
    let first: FakeSource | undefined;
    await cache.use('p1/a', { v: 1 }, open, async (s) => (first = s));
    const second = await cache.use('p1/a', { v: 2 }, open, async (s) => s);
    await sleep(0);
    expect(second).not.toBe(first);
    expect(first?.closed).toBe(true);
    expect(second.closed).toBe(false);
    await cache.closeAll();
  });

  it('forgets and closes a source a read failed on: the next read opens a new one', async () => {
    const cache = new SourceCache<FakeSource>();
    const open = async () => new FakeSource();
    const settings = {};
    let broken: FakeSource | undefined;
    await expect(
      cache.use('k', settings, open, async (s) => {
        broken = s;
        throw new Error('CWBCO1047');
      }),
    ).rejects.toThrow('CWBCO1047');
    const next = await cache.use('k', settings, open, async (s) => s);
    expect(next).not.toBe(broken);
    await sleep(0);
    expect(broken?.closed).toBe(true);
    await cache.closeAll();
  });

  it('a source that cannot be opened is not kept: the next read tries again', async () => {
    const cache = new SourceCache<FakeSource>();
    let attempts = 0;
    const open = async () => {
      if (++attempts === 1) throw new Error('unreachable');
      return new FakeSource();
    };
    await expect(cache.use('k', 'd', open, (s) => s.read())).rejects.toThrow('unreachable');
    await expect(cache.use('k', 'd', open, (s) => s.read(0))).resolves.toBeGreaterThan(0);
    expect(attempts).toBe(2);
    await cache.closeAll();
  });

  it('closes a source left unused for the idle time, and not before', async () => {
    vi.useFakeTimers();
    try {
      const cache = new SourceCache<FakeSource>(30_000);
      const source = await cache.use(
        'k',
        'd',
        async () => new FakeSource(),
        async (s) => s,
      );
      await vi.advanceTimersByTimeAsync(29_999);
      expect(cache.size).toBe(1);
      expect(source.closed).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(cache.size).toBe(0);
      expect(source.closed).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });
});
