// Where a batch's time goes, both sources into SQLite and PostgreSQL: a row committed at the source at a
// known moment, read by a source that takes 120 ms more, applied by a target that takes 150 ms more.
// The batch's split puts each delay in its own part, the parts add up to its end-to-end latency, that
// latency spans the row's commit (the source's own timestamp) to the target's commit, and the engine's
// freshness figures give it back.
import { describe, expect, it } from 'vitest';
import type { ChangeBatch, SourceAgent } from '../../../main/agents/source';
import type { Target } from '../../../main/agents/target';
import { createEngineMetrics } from '../../../main/engine/metrics';
import type { RunnerEvent } from '../../../main/runner/events';
import { PipelineRunner } from '../../../main/runner/pipelineRunner';
import { bothSources, withMethod } from '../../helpers/bothSources';
import { SOURCE_TARGET_PAIRS, targetSideFor } from '../../helpers/targetSide';

const SOURCE_DELAY_MS = 120;
const TARGET_DELAY_MS = 150;
/** sys.dm_tran_commit_table's commit_time is a datetime: rounded to 1/300 s. */
const CLOCK_GRAIN_MS = 4;

const sources = bothSources({ pipelineId: 'latency', ibmiSchema: 'LATENCY' });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(SOURCE_TARGET_PAIRS)('a %s batch into %s', (sourceKind, targetKind) => {
  it('splits its latency into source, engine and target, adding up to commit → applied', async () => {
    const h = await sources.harness(sourceKind);
    const table = await h.createTable(`L${targetKind === 'sqlite' ? 'S' : 'P'}`);
    await h.insert(table, [{ id: 1, name: 'copied', amount: '1.00' }]);
    const side = await targetSideFor(targetKind, sources.client(), `latency_${sourceKind.replace('-', '_')}`);
    const copy = new PipelineRunner({
      openSource: () => h.open(),
      openTarget: () => side.open(),
      entities: [h.entity(table)],
    });
    await copy.runUntilCaughtUp();
    expect(copy.failure).toBeNull();

    const committedAfter = Date.now();
    await h.insert(table, [{ id: 2, name: 'streamed', amount: '2.00' }]);
    const committedBefore = Date.now();
    const events: RunnerEvent[] = [];
    let appliedAt = 0;
    let toldAt = 0;
    const slowSource = async (): Promise<SourceAgent> => {
      const agent = await h.open();
      return withMethod(agent, 'readChanges', async (...args: Parameters<SourceAgent['readChanges']>) => {
        const batch: ChangeBatch = await agent.readChanges(...args);
        if (batch.changes.length > 0) await sleep(SOURCE_DELAY_MS);
        return batch;
      });
    };
    const slowTarget = async (): Promise<Target> => {
      const target = await side.open();
      return withMethod(target, 'apply', async (...args: Parameters<Target['apply']>) => {
        if (args[0].length > 0) await sleep(TARGET_DELAY_MS);
        await target.apply(...args);
        if (args[0].length > 0) appliedAt = Date.now();
      });
    };
    const stream = new PipelineRunner({
      openSource: slowSource,
      openTarget: slowTarget,
      entities: [h.entity(table)],
      onEvent: (e) => {
        events.push(e);
        if (e.kind === 'batch-applied') toldAt = Date.now();
      },
    });
    await stream.runUntilCaughtUp();
    expect(stream.failure).toBeNull();

    const batches = events.flatMap((e) => (e.kind === 'batch-applied' ? [e] : []));
    expect(batches).toHaveLength(1);
    const [batch] = batches;
    const latency = batch?.latency;
    if (!batch || !latency) throw new Error('The batch carries no latency.');
    expect(batch.lagMs).toBe(latency.sourceMs + latency.engineMs + latency.targetMs);
    // Each delay in its own part.
    expect(latency.sourceMs).toBeGreaterThanOrEqual(SOURCE_DELAY_MS);
    expect(latency.targetMs).toBeGreaterThanOrEqual(TARGET_DELAY_MS);
    expect(latency.engineMs).toBeGreaterThanOrEqual(0);
    expect(latency.engineMs).toBeLessThan(SOURCE_DELAY_MS);
    // From the row's commit (between the two clock readings) to the target's commit (after the
    // target's apply returned, before the batch was told).
    expect(batch.lagMs).toBeGreaterThanOrEqual(appliedAt - committedBefore - CLOCK_GRAIN_MS);
    expect(batch.lagMs).toBeLessThanOrEqual(toldAt - committedAfter + CLOCK_GRAIN_MS);

    // The engine's freshness over the last minute is that batch, within its 1%.
    const metrics = createEngineMetrics(() => new Date());
    for (const e of events) metrics.event('latency', 'source', e.kind, e);
    const { freshness, latency: last } = metrics.figures('latency', 'source');
    expect(last).toEqual(latency);
    expect(freshness.minute.batches).toBe(1);
    expect(freshness.day.batches).toBe(1);
    for (const p of [freshness.minute.p50Seconds, freshness.minute.p99Seconds])
      expect(Math.abs((p ?? 0) * 1000 - (batch.lagMs ?? 0))).toBeLessThanOrEqual((batch.lagMs ?? 0) * 0.01);
  });
});
