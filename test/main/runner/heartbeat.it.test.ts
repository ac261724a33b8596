// The source's heartbeat on a quiet source, into SQLite and PostgreSQL: nothing changes in the
// pipeline's table, yet every heartbeat the agent writes moves the table's position at the target and
// at the source, reaches the target as a heartbeat-applied event stamped with the heartbeat's own time
// (as the source wrote it), and feeds the engine's freshness and its "fresh to" figure. A login that
// may not make the heartbeat's table (or send the journal entry) runs on without it, told once.
import { describe, expect, it } from 'vitest';
import type { SourceAgent } from '../../../main/agents/source';
import { tableKey } from '../../../main/agents/source';
import { openChangeTrackingSource } from '../../../main/agents/changeTracking/source';
import { heartbeatGrant } from '../../../main/agents/journal/heartbeat';
import { parsePosition } from '../../../main/agents/journal/position';
import { openJournalSource } from '../../../main/agents/journal/source';
import type { Entity } from '../../../shared/controlApi';
import { SEED_ADMIN, SEED_AGENT } from '../../../simulators/ibmi/seed';
import { journalConfiguration, sandboxIbmiCredentials } from '../../helpers/journal';
import { createEngineMetrics } from '../../../main/engine/metrics';
import { parseStored } from '../../../main/runner/copies';
import type { RunnerEvent } from '../../../main/runner/events';
import { PipelineRunner } from '../../../main/runner/pipelineRunner';
import { bothSources, withMethod } from '../../helpers/bothSources';
import { changeTrackingHarness, ctConfiguration, sandboxCredentials } from '../../helpers/changeTracking';
import { startSandboxSqlServer } from '../../../simulators/mssql';
import { DBA, sandboxPool } from '../../helpers/sandbox';
import { SOURCE_TARGET_PAIRS, targetSideFor } from '../../helpers/targetSide';
import { until } from '../../helpers/until';

const IBMI_SCHEMA = 'HEARTBT';
const sources = bothSources({ pipelineId: 'heartbeat', ibmiSchema: IBMI_SCHEMA });
/** The heartbeat's beat_at is a datetime2(3): its time is the write's to the millisecond. */
const CLOCK_GRAIN_MS = 1;

type HeartbeatEvent = Extract<RunnerEvent, { kind: 'heartbeat-applied' }>;

/** A table's position as a number that grows: a change-tracking version, a journal entry's sequence. */
const positionNumber = (kind: SourceKind, text: string | undefined): bigint =>
  text === undefined
    ? 0n
    : kind === 'change-tracking'
      ? BigInt(text)
      : BigInt(parsePosition(text).applied.sequence);

type SourceKind = 'change-tracking' | 'journal';

/** The agent of that kind on the suite's simulator, with the heartbeat on. */
function openWithHeartbeat(kind: SourceKind, pipelineId: string, entity: Entity): Promise<SourceAgent> {
  return kind === 'change-tracking'
    ? openChangeTrackingSource({
        credentials: sandboxCredentials(sources.mssql()),
        configuration: ctConfiguration({ heartbeatSeconds: 1 }),
        pipelineId,
        agentId: 'source',
      })
    : openJournalSource({
        credentials: sandboxIbmiCredentials(sources.ibmi(), { syncLibrary: syncLibraryOf(pipelineId) }),
        configuration: journalConfiguration({ heartbeatSeconds: 1 }),
        pipelineId,
        agentId: 'source',
        entities: [entity],
      });
}

const syncLibraryOf = (pipelineId: string) => `HB${pipelineId.slice(-6).toUpperCase().replace(/-/g, '')}`;

/** The journal of the suite's IBM i tables, with the rights the heartbeat needs given, or taken away. */
async function heartbeatAuthority(give: boolean): Promise<void> {
  const admin = await sources.ibmi().connect({ ...SEED_ADMIN });
  try {
    const journal = `OBJ(${IBMI_SCHEMA}/QSQJRN) OBJTYPE(*JRN)`;
    await admin.command(`RVKOBJAUT ${journal} USER(*PUBLIC) AUT(*ADD)`);
    // The grant the agent names: a private authority replaces *PUBLIC's, so it must keep *USE.
    if (give) await admin.command(heartbeatGrant({ library: IBMI_SCHEMA, name: 'QSQJRN' }, SEED_AGENT.user));
    else {
      await admin.command(`GRTOBJAUT ${journal} USER(${SEED_AGENT.user}) AUT(*USE)`);
      await admin.command(`RVKOBJAUT ${journal} USER(${SEED_AGENT.user}) AUT(*ADD)`);
    }
  } finally {
    await admin.close();
  }
}

/** Where the source's own checkpoint has the table now. */
async function positionAtSource(kind: SourceKind, pipelineId: string, entity: Entity): Promise<bigint> {
  const key = tableKey(entity.source);
  if (kind === 'journal') {
    const agent = await openWithHeartbeat(kind, pipelineId, entity);
    try {
      return positionNumber(kind, (await agent.loadCheckpoint())[key]);
    } finally {
      await agent.close();
    }
  }
  const pool = await sandboxPool(sources.mssql(), { max: 1 });
  try {
    const { recordset } = await pool
      .request()
      .input('agent', `|${pipelineId}/source`)
      .input('t', key)
      .query<{ v: string }>(
        'SELECT version AS v FROM SYNC.CT_CHECKPOINT WHERE agent_key = @agent AND table_name = @t',
      );
    return positionNumber(kind, recordset[0]?.v);
  } finally {
    await pool.close();
  }
}

describe.each(SOURCE_TARGET_PAIRS)(
  'a quiet %s source into %s with the heartbeat on',
  (sourceKind, targetKind) => {
    it('moves the position with each heartbeat and measures freshness from its own time', async () => {
      const h = await sources.harness(sourceKind);
      const table = await h.createTable(`Quiet${targetKind === 'sqlite' ? 'S' : 'P'}`);
      await h.insert(table, [{ id: 1, name: 'only', amount: '1.00' }]);
      if (sourceKind === 'journal') await heartbeatAuthority(true);
      const entity = h.entity(table);
      const side = await targetSideFor(
        targetKind,
        sources.client(),
        `heartbeat_${sourceKind}_${targetKind}`.replace(/-/g, '_'),
      );
      const pipelineId = `heartbeat-${sourceKind === 'journal' ? 'j' : 'ct'}-${targetKind === 'sqlite' ? 'sq' : 'pg'}`;
      // Each beat between two clock readings: the heartbeat's time must fall between them.
      const beats: { before: number; after: number }[] = [];
      const open = async (): Promise<SourceAgent> => {
        const agent = await openWithHeartbeat(sourceKind, pipelineId, entity);
        const heartbeat = agent.heartbeat;
        if (!heartbeat) throw new Error('The heartbeat is on, yet the agent has none.');
        return withMethod(agent, 'heartbeat', {
          everyMs: heartbeat.everyMs,
          beat: async () => {
            const before = Date.now();
            await heartbeat.beat();
            beats.push({ before, after: Date.now() });
          },
        });
      };
      // Before Start, the check says the heartbeat can be written, and what Start will write.
      const checking = await openWithHeartbeat(sourceKind, pipelineId, entity);
      const check = (await checking.check([entity])).find((c) => c.id === 'heartbeat');
      await checking.close();
      expect(check?.status).toBe('passed');
      if (sourceKind === 'journal')
        expect(check?.atStart).toBe(
          `SNDJRNE JRN(${IBMI_SCHEMA}/QSQJRN) TYPE(HB) ENTDTA('${pipelineId.toUpperCase()}/SOURCE')`,
        );
      const events: RunnerEvent[] = [];
      const toldAt = new Map<HeartbeatEvent, number>();
      const runner = new PipelineRunner({
        openSource: open,
        openTarget: () => side.open(),
        entities: [entity],
        idleMs: 200,
        onEvent: (e) => {
          events.push(e);
          if (e.kind === 'heartbeat-applied') toldAt.set(e, Date.now());
        },
      });
      const heartbeats = () => events.filter((e): e is HeartbeatEvent => e.kind === 'heartbeat-applied');
      const target = await side.open();
      const positionAtTarget = async () =>
        positionNumber(sourceKind, parseStored(await target.loadCheckpoint()).positions[tableKey(table)]);
      try {
        runner.start();
        await until('a first heartbeat at the target', () => heartbeats().length >= 1);
        // While the source is quiet, the heartbeats alone move the table's position, at both ends.
        const firstAtTarget = await positionAtTarget();
        const firstAtSource = await positionAtSource(sourceKind, pipelineId, entity);
        const seen = heartbeats().length;
        await until('two more heartbeats', () => heartbeats().length >= seen + 2);
        expect(runner.failure).toBeNull();
        expect(await positionAtTarget()).toBeGreaterThan(firstAtTarget);
        await until(
          'the source checkpoint to follow',
          async () => (await positionAtSource(sourceKind, pipelineId, entity)) > firstAtSource,
        );
        // No change was applied: the row is as copied, and no batch was told.
        expect(events.filter((e) => e.kind === 'batch-applied')).toHaveLength(0);
        expect((await side.rows(entity.target.table)).map((r) => h.normalize(r).name)).toEqual(['only']);
      } finally {
        await runner.stop();
        await target.close();
      }

      const applied = heartbeats();
      // Each heartbeat's time is one the agent wrote (between the readings around a beat), each is
      // told once, and its latency spans that time to the target's commit, the parts adding up.
      const times = applied.map((e) => Date.parse(e.at));
      expect(new Set(times).size).toBe(times.length);
      for (const e of applied) {
        const at = Date.parse(e.at);
        expect(
          beats.some((b) => at >= b.before - CLOCK_GRAIN_MS && at <= b.after + CLOCK_GRAIN_MS),
          `heartbeat ${e.at} is one the agent wrote`,
        ).toBe(true);
        const latency = e.latency;
        if (!latency || e.lagMs === null) throw new Error('The heartbeat carries no latency.');
        expect(e.lagMs).toBe(latency.sourceMs + latency.engineMs + latency.targetMs);
        expect(e.lagMs).toBeLessThanOrEqual((toldAt.get(e) ?? 0) - at + CLOCK_GRAIN_MS);
      }

      // The engine's figures: the heartbeats are the minute's freshness, the newest one's time and age.
      const newest = applied.at(-1) as HeartbeatEvent;
      const later = new Date(Date.parse(newest.at) + 2_500);
      const metrics = createEngineMetrics(() => later);
      for (const e of events) metrics.event(pipelineId, 'source', e.kind, e);
      const figures = metrics.figures(pipelineId, 'source');
      expect(figures.freshness.minute.batches).toBe(applied.length);
      expect(figures.heartbeat).toEqual({ at: newest.at, freshToSeconds: 2.5, latency: newest.latency });
      const lags = applied.map((e) => e.lagMs ?? 0).sort((a, b) => a - b);
      const highest = lags.at(-1) ?? 0;
      expect(Math.abs((figures.freshness.minute.p99Seconds ?? 0) * 1000 - highest)).toBeLessThanOrEqual(
        highest * 0.01 + CLOCK_GRAIN_MS,
      );
      // The last batch's split stays the batch's: a heartbeat is not a batch of changes.
      expect(figures.latency).toBeNull();
    });
  },
);

describe('the heartbeat refused', () => {
  it('runs on without it when the login may not enable Change Tracking on its table, told once', async () => {
    const login = { name: 'noalter', password: DBA.password, permissions: { alter: false } };
    const mssql = await startSandboxSqlServer({ logins: [DBA, login], databases: ['Sales'] });
    const h = await changeTrackingHarness(sandboxCredentials(mssql), { pipelineId: 'refused' });
    try {
      // The SYNC schema made by a DBA beforehand: the login does not own it.
      const dba = await sandboxPool(mssql, { max: 1 });
      await dba.request().batch('CREATE SCHEMA SYNC');
      await dba.close();
      const table = await h.createTable('QuietRefused');
      await h.insert(table, [{ id: 1, name: 'only', amount: '1.00' }]);
      await h.grantRead(table);
      const credentials = sandboxCredentials(mssql, { username: login.name, password: login.password });
      const configuration = ctConfiguration({ heartbeatSeconds: 1 });
      const open = () =>
        openChangeTrackingSource({ credentials, configuration, pipelineId: 'refused', agentId: 'source' });

      const checking = await open();
      const check = (await checking.check([h.entity(table)])).find((c) => c.id === 'heartbeat');
      await checking.close();
      expect(check?.status).toBe('warning');
      expect(check?.fix).toBe('GRANT CREATE TABLE TO [noalter]; GRANT ALTER ON SCHEMA::[SYNC] TO [noalter];');

      const side = await targetSideFor('sqlite', sources.client(), 'heartbeat_refused');
      const events: RunnerEvent[] = [];
      const runner = new PipelineRunner({
        openSource: open,
        openTarget: () => side.open(),
        entities: [h.entity(table)],
        idleMs: 200,
        onEvent: (e) => events.push(e),
      });
      try {
        runner.start();
        await until('the heartbeat refused', () => events.some((e) => e.kind === 'heartbeat-refused'));
        // The pipeline goes on: a change made now still arrives.
        await h.update(table, 1, 'changed');
        await until('the change at the target', async () =>
          (await side.rows(table.table)).some((r) => r.name === 'changed'),
        );
      } finally {
        await runner.stop();
      }
      expect(runner.failure).toBeNull();
      const refused = events.filter((e) => e.kind === 'heartbeat-refused');
      expect(refused).toHaveLength(1);
      expect(refused[0]).toMatchObject({
        reason: expect.stringContaining('GRANT ALTER ON SCHEMA::[SYNC] TO [noalter]'),
      });
      expect(events.some((e) => e.kind === 'heartbeat-applied')).toBe(false);
    } finally {
      await h.close();
      await mssql.close();
    }
  });

  it('runs on without it when the profile may not send entries to the journal, told once', async () => {
    const h = await sources.harness('journal');
    const table = await h.createTable('QuietRefused');
    await h.insert(table, [{ id: 1, name: 'only', amount: '1.00' }]);
    await heartbeatAuthority(false);
    const entity = h.entity(table);
    const pipelineId = 'refused-journal';
    const grant = heartbeatGrant({ library: IBMI_SCHEMA, name: 'QSQJRN' }, SEED_AGENT.user);

    const checking = await openWithHeartbeat('journal', pipelineId, entity);
    const check = (await checking.check([entity])).find((c) => c.id === 'heartbeat');
    await checking.close();
    expect(check?.status).toBe('warning');
    expect(check?.message).toContain(`${IBMI_SCHEMA}/QSQJRN (*JRN) lacks *ADD`);
    expect(check?.fix).toBe(grant);

    const side = await targetSideFor('sqlite', sources.client(), 'heartbeat_refused_journal');
    const events: RunnerEvent[] = [];
    const runner = new PipelineRunner({
      openSource: () => openWithHeartbeat('journal', pipelineId, entity),
      openTarget: () => side.open(),
      entities: [entity],
      idleMs: 200,
      onEvent: (e) => events.push(e),
    });
    try {
      runner.start();
      await until('the heartbeat refused', () => events.some((e) => e.kind === 'heartbeat-refused'));
      // Another agent's heartbeat in the same journal is read past, and is not this pipeline's.
      const target = await side.open();
      const atTarget = async () =>
        positionNumber('journal', parseStored(await target.loadCheckpoint()).positions[tableKey(table)]);
      try {
        const before = await atTarget();
        const admin = await sources.ibmi().connect({ ...SEED_ADMIN });
        await admin.command(`SNDJRNE JRN(${IBMI_SCHEMA}/QSQJRN) TYPE(HB) ENTDTA('OTHER-PIPELINE/SOURCE')`);
        await admin.close();
        await until('the position past the other heartbeat', async () => (await atTarget()) > before);
      } finally {
        await target.close();
      }
      // The pipeline goes on: a change made now still arrives.
      await h.update(table, 1, 'changed');
      await until('the change at the target', async () =>
        (await side.rows(entity.target.table)).some((r) => h.normalize(r).name === 'changed'),
      );
    } finally {
      await runner.stop();
    }
    expect(runner.failure).toBeNull();
    const refused = events.filter((e) => e.kind === 'heartbeat-refused');
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({ reason: expect.stringContaining(grant) });
    expect(events.some((e) => e.kind === 'heartbeat-applied')).toBe(false);
  });
});
