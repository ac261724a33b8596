// A stream applied back: each source captured into JetStream by one pipeline, then applied from the
// stream into SQLite and PostgreSQL by another (the nats-jetstream source) — the copy replayed from the
// truncate event, inserts, updates, deletes, a column added at the source, and a restart; the target
// equals the source. Then two apply engines sharing one stream by table: a fair share each while both
// live (the first gives tables back when the second joins), each table applied by one of them at a
// time, and when one dies (its leases lapse, never given back) its tables go on at the other.
import { afterAll, describe, expect, it } from 'vitest';
import { natsConfiguration } from '../../../../shared/agents/nats';
import { NatsSource } from '../../../../main/agents/nats/source';
import { NatsTarget } from '../../../../main/agents/nats/target';
import { type Row, type TableRef } from '../../../../main/agents/source';
import { PipelineRunner } from '../../../../main/runner/pipelineRunner';
import type { RunnerEvent } from '../../../../main/runner/events';
import { bothSources } from '../../../helpers/bothSources';
import { deleteStreams, natsServers } from '../../../helpers/natsServer';
import { SOURCE_TARGET_PAIRS, targetSideFor, type TargetSide } from '../../../helpers/targetSide';
import { until } from '../../../helpers/until';
import type { SourceHarness } from '../contract/sourceAgent';

const SERVERS = natsServers();
const sources = bothSources({ pipelineId: 'natsap', ibmiSchema: 'NATSAP' });
const streams: string[] = [];
const runners: PipelineRunner[] = [];
let made = 0;

afterAll(async () => {
  for (const r of runners) await r.stop().catch(() => undefined);
  await deleteStreams(
    SERVERS,
    streams.flatMap((s) => [s, `KV_cdc_leases_${s}`]),
  );
});

type Kind = 'change-tracking' | 'journal';
const credentials = { connectionName: 'test', servers: SERVERS, tls: false };

/** A running pipeline capturing the harness's tables into a new stream. */
function capture(h: SourceHarness, kind: Kind, tables: TableRef[], n: number) {
  const stream = `NATSAP_${n}_${Date.now()}`;
  streams.push(stream);
  const prefix = `natsap${n}`;
  const events: RunnerEvent[] = [];
  const runner = new PipelineRunner({
    openSource: () => h.open(),
    openTarget: async () =>
      new NatsTarget({
        credentials,
        configuration: natsConfiguration.schema.parse({ stream, subjectPrefix: prefix }),
        pipelineId: `cap${n}`,
        origin:
          kind === 'change-tracking'
            ? { connector: 'sqlserver', server: 'sandbox', database: 'Sales' }
            : { connector: 'ibmi', server: 'sandbox', database: null },
      }),
    entities: tables.map((t) => h.entity(t)),
    onEvent: (e) => events.push(e),
    idleMs: 20,
  });
  runners.push(runner);
  void runner.start();
  return { stream, prefix, events, runner };
}

/** A pipeline applying the stream's tables to `side`, as engine `engineId`. */
function apply(
  h: SourceHarness,
  kind: Kind,
  tables: TableRef[],
  stream: string,
  prefix: string,
  side: TargetSide,
  options: { engineId?: string; dies?: boolean } = {},
) {
  const events: RunnerEvent[] = [];
  const runner = new PipelineRunner({
    openSource: async () => {
      const source = await NatsSource.open({
        credentials,
        configuration: natsConfiguration.schema.parse({
          stream,
          subjectPrefix: prefix,
          // Longer than a step may stall on a loaded 2-core machine (the whole suite at pace ×1.8 once
          // let a 3-second lease lapse between two steps of a live engine), short enough for the
          // dead engine's tables to move within the wait below.
          leaseSeconds: 10,
          ...(kind === 'change-tracking' && { sourceDatabase: 'Sales' }),
        }),
        pipelineId: 'apply',
        ...(options.engineId && { engineId: options.engineId }),
      });
      // A dying engine gives nothing back: its leases and its presence lapse on their own.
      if (options.dies)
        (source as unknown as { leases: { release(): Promise<void> } }).leases.release = async () =>
          undefined;
      return source;
    },
    openTarget: () => side.open(),
    entities: tables.map((t) => h.entity(t)),
    onEvent: (e) => events.push(e),
    idleMs: 20,
    retry: { firstDelayMs: 20, maxDelayMs: 200, maxAttempts: 50 },
  });
  runners.push(runner);
  void runner.start();
  /** The tables this engine holds the leases of now. */
  const held = () => runner.heldTables() ?? [];
  return { runner, events, held };
}

/** A step that must end within `ms`: a hang names the step, not only the test. */
const within = <T>(what: string, work: Promise<T>, ms = 30_000): Promise<T> =>
  Promise.race([
    work,
    new Promise<T>((_, reject) =>
      setTimeout(() => reject(new Error(`${what} did not end within ${ms} ms`)), ms).unref(),
    ),
  ]);

const same = (r: Row) => {
  const lower = Object.fromEntries(Object.entries(r).map(([k, v]) => [k.toLowerCase(), v]));
  return { id: Number(lower.id), name: String(lower.name), amount: Number(lower.amount).toFixed(2) };
};
const rowsOf = async (side: TargetSide, h: SourceHarness, t: TableRef) =>
  (await side.rows(h.entity(t).target.table).catch(() => [])).map(same).sort((a, b) => a.id - b.id);

describe.each(SOURCE_TARGET_PAIRS)('%s → NATS JetStream → %s', (kind, targetKind) => {
  // Long under load: two pipelines, a schema change and a restart (its lease lapses first) in one flow.
  it(
    'applies the stream: the copy, each change, a column added, and a restart; the target equals the source',
    { timeout: 120_000 },
    async () => {
      const h = await sources.harness(kind);
      const n = ++made;
      const t = await h.createTable(`NA${n}`);
      await h.insert(t, [
        { id: 1, name: 'alpha', amount: '10.50' },
        { id: 2, name: 'beta £ ✓', amount: '-7.25' },
        { id: 3, name: 'gamma', amount: '0.00' },
      ]);
      const { stream, prefix, events: captured, runner: capturing } = capture(h, kind, [t], n);
      await until('captured', () => captured.some((e) => e.kind === 'snapshot-done'));
      const side = await targetSideFor(targetKind, sources.client(), `natsap${n}_${targetKind}`);
      let applier = apply(h, kind, [t], stream, prefix, side);
      await until('the copy applied', async () => (await rowsOf(side, h, t)).length === 3, 30_000);
      await h.update(t, 1, 'alpha2');
      await h.remove(t, 2);
      await h.insert(t, [{ id: 4, name: 'delta', amount: '123456789.99' }]);
      await until(
        'the changes applied',
        async () => (await rowsOf(side, h, t)).some((r) => r.id === 4),
        30_000,
      );
      expect(await rowsOf(side, h, t)).toEqual([
        { id: 1, name: 'alpha2', amount: '10.50' },
        { id: 3, name: 'gamma', amount: '0.00' },
        { id: 4, name: 'delta', amount: '123456789.99' },
      ]);

      // A column added at the source reaches the applied table from the capture's schema change event,
      // before any row has it; then the rows that use it.
      await h.addNoteColumn(t);
      await until(
        'the capture told the new shape',
        () => captured.some((e) => e.kind === 'schema-changed'),
        30_000,
      );
      await until(
        'the new column',
        async () => (await side.columns(h.entity(t).target.table))?.includes('note') === true,
        30_000,
      );
      await h.insert(t, [{ id: 5, name: 'epsilon', amount: '5.05' }]);
      await until('row 5', async () => (await rowsOf(side, h, t)).some((r) => r.id === 5), 30_000);

      // Stopped and started again, it goes on from the position kept with the rows.
      await within('stopping the apply pipeline', applier.runner.stop());
      await h.update(t, 3, 'gamma2');
      await h.remove(t, 4);
      applier = apply(h, kind, [t], stream, prefix, side);
      await until(
        'caught up after the restart',
        async () => !(await rowsOf(side, h, t)).some((r) => r.id === 4),
        30_000,
      );
      expect(await rowsOf(side, h, t)).toEqual([
        { id: 1, name: 'alpha2', amount: '10.50' },
        { id: 3, name: 'gamma2', amount: '0.00' },
        { id: 5, name: 'epsilon', amount: '5.05' },
      ]);
      expect(applier.events.filter((e) => e.kind === 'failed')).toEqual([]);
      await within('stopping the apply pipeline', applier.runner.stop());
      // Each test's capture stops with it: pipelines polling on do not load the next tests.
      await within('stopping the capture', capturing.stop());
    },
  );
});

describe('two apply engines sharing one stream', () => {
  it(
    'split the tables while both live, never apply one at once, and a dead engine’s tables go on at the other',
    { timeout: 120_000 },
    async () => {
      const h = await sources.harness('change-tracking');
      const n = ++made;
      const tables = [
        await h.createTable(`NB${n}A`),
        await h.createTable(`NB${n}B`),
        await h.createTable(`NB${n}C`),
        await h.createTable(`NB${n}D`),
      ];
      for (const t of tables) await h.insert(t, [{ id: 1, name: 'one', amount: '1.00' }]);
      const {
        stream,
        prefix,
        events: captured,
        runner: capturing,
      } = capture(h, 'change-tracking', tables, n);
      await until('captured', () => captured.filter((e) => e.kind === 'snapshot-done').length === 4);
      const side = await targetSideFor('postgresql', sources.client(), `natsab${n}`);
      // The first engine starts alone and takes every table; the second joins a moment later.
      const first = apply(h, 'change-tracking', tables, stream, prefix, side, {
        engineId: 'engine-1',
        dies: true,
      });
      await until('the first engine holds every table', () => first.held().length === 4);
      const second = apply(h, 'change-tracking', tables, stream, prefix, side, { engineId: 'engine-2' });
      // A fair share each, rebalanced while both live: the first gives two back, the second takes them.
      await until('the tables split', () => first.held().length === 2 && second.held().length === 2, 30_000);
      expect(new Set([...first.held(), ...second.held()]).size).toBe(4);
      const copied = async () => {
        for (const t of tables) if ((await rowsOf(side, h, t)).length !== 1) return false;
        return true;
      };
      await until('every table applied', copied, 30_000);
      const since = { first: first.events.length, second: second.events.length };
      for (const t of tables) await h.insert(t, [{ id: 2, name: 'two', amount: '2.00' }]);
      await until(
        'the second rows',
        async () => {
          for (const t of tables) if ((await rowsOf(side, h, t)).length !== 2) return false;
          return true;
        },
        30_000,
      );
      // While both live, each table's changes are applied by one engine, and each engine applies some.
      const appliedBy = (events: RunnerEvent[]) =>
        new Set(events.flatMap((e) => (e.kind === 'batch-applied' ? Object.keys(e.tables) : [])));
      const told = () => [
        appliedBy(first.events.slice(since.first)),
        appliedBy(second.events.slice(since.second)),
      ];
      // A batch's event follows its commit (and the source's checkpoint): the rows may be seen first.
      await until('every table’s batch told', () => told().reduce((n, s) => n + s.size, 0) >= 4);
      const [one = new Set<string>(), two = new Set<string>()] = told();
      expect([...one].filter((t) => two.has(t))).toEqual([]);
      expect(one.size).toBeGreaterThan(0);
      expect(two.size).toBeGreaterThan(0);
      expect(one.size + two.size).toBe(4);
      // The fence never let an engine commit over the other: no position went back.
      for (const e of [...first.events, ...second.events])
        expect(e.kind === 'failed' ? e.reason : '').not.toMatch(/committed by another engine/);

      // The first engine dies: its leases and presence lapse, and the second applies every table.
      await first.runner.stop();
      for (const t of tables) await h.update(t, 1, 'after');
      await until(
        'every table on the second engine',
        async () => {
          for (const t of tables)
            if (!(await rowsOf(side, h, t)).some((r) => r.name === 'after')) return false;
          return true;
        },
        30_000,
      ).catch((e: unknown) => {
        console.log(JSON.stringify(second.events.slice(-8)).slice(0, 3000));
        throw e;
      });
      expect(second.held()).toHaveLength(4);
      for (const t of tables)
        expect(await rowsOf(side, h, t)).toEqual([
          { id: 1, name: 'after', amount: '1.00' },
          { id: 2, name: 'two', amount: '2.00' },
        ]);
      await second.runner.stop();
      await within('stopping the capture', capturing.stop());
    },
  );
});
