// Typed reads and writes of the state store. SQL stays here; callers see API-shaped objects.
import { agentTypes, type AgentType } from '../../../shared/agents';
import { redactSection, safeJson, secretKeysOf } from '../../../shared/config/parse';
import type { Agent, AgentState, Entity, Pipeline, TableActivity } from '../../../shared/controlApi';
import type { EventKind } from '../../../shared/eventText';
import { engineSettingsSchema, type EngineSettings } from '../../../shared/engineSettings';
import { z } from 'zod';
import type { Db } from './db';
import { verifyReportSchema, type VerifyReport } from '../../../shared/verify';

const VERIFY_REPORTS_KEPT = 10;
/** The events that carry a whole set of check results: a test, and a fix with the checks after it. */
const CHECK_KINDS = "'checked', 'fix-applied', 'fix-not-needed'";

interface PipelineRow {
  id: string;
  name: string;
  created_at: string;
  updated_at: string;
}
const secretKeysSchema = z.array(z.string());

/** An agent as its table stores it (SQL names, JSON as text); only this file sees it. */
interface AgentRecord {
  pipeline_id: string;
  id: string;
  name: string;
  type: AgentType;
  role: 'source' | 'target';
  state: AgentState;
  failure_reason: string | null;
  host_credentials: string | null;
  secrets_sealed: string | null;
  secrets_set: string | null;
  configuration: string | null;
  created_at: string;
  updated_at: string;
}

/** An agent as the store hands it over: its settings without the secrets, which stay sealed. */
/** How the credentials stored while a pipeline waited fared at their sign-on. */
export interface PendingSignOn {
  agentId: string;
  at: string;
  outcome: 'passed' | 'failed' | 'untried';
  message: string;
}

export interface StoredAgent {
  pipelineId: string;
  id: string;
  name: string;
  type: AgentType;
  role: 'source' | 'target';
  state: AgentState;
  failureReason: string | null;
  /** The host credentials but their secrets; null before the first credentials PUT. */
  hostCredentials: Record<string, unknown> | null;
  /** The secrets of the host credentials, sealed by the secret box. */
  secretsSealed: string | null;
  /** The keys of the secrets stored; null for credentials stored before the store kept them. */
  secretsSet?: string[] | null;
  configuration: Record<string, unknown> | null;
  createdAt: string;
  updatedAt: string;
}

const toStoredAgent = (r: AgentRecord): StoredAgent => ({
  pipelineId: r.pipeline_id,
  id: r.id,
  name: r.name,
  type: r.type,
  role: r.role,
  state: r.state,
  failureReason: r.failure_reason,
  hostCredentials:
    r.host_credentials === null ? null : (JSON.parse(r.host_credentials) as Record<string, unknown>),
  secretsSealed: r.secrets_sealed,
  secretsSet: secretKeysSchema.safeParse(safeJson(r.secrets_set ?? 'null')).data ?? null,
  configuration: r.configuration === null ? null : (JSON.parse(r.configuration) as Record<string, unknown>),
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const toPipeline = (r: PipelineRow): Pipeline => ({
  id: r.id,
  name: r.name,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** The agent as the API answers it: secrets only said to be set. */
export function toAgent(a: StoredAgent): Agent {
  const sections = agentTypes[a.type].sections;
  let hostCredentials: Record<string, unknown> | null = null;
  if (a.hostCredentials !== null) {
    const plain = { ...a.hostCredentials };
    // Secrets live sealed in their own column; here they only count as "set".
    for (const key of secretKeysOf(sections.hostCredentials))
      plain[key] = a.secretsSealed && (a.secretsSet?.includes(key) ?? true) ? 'set' : undefined;
    hostCredentials = redactSection(sections.hostCredentials, plain);
  }
  const { secretsSealed: _sealed, secretsSet: _set, ...rest } = a;
  return { ...rest, hostCredentials };
}

/** How many events a pipeline may gain between two prunings by count (its bound is keepEvents + this). */
export const PRUNE_EVERY = 100;
const DAY_MS = 86_400_000;

export function createRepo(db: Db, retention: EngineSettings = engineSettingsSchema.parse({})) {
  const q = {
    pipeline: db.prepare<[string], PipelineRow>('SELECT * FROM pipelines WHERE id = ?'),
    pipelines: db.prepare<[], PipelineRow>('SELECT * FROM pipelines ORDER BY created_at, id'),
    insertPipeline: db.prepare(
      'INSERT INTO pipelines (id, name, created_at, updated_at) VALUES (?, ?, ?, ?)',
    ),
    deletePipeline: db.prepare('DELETE FROM pipelines WHERE id = ?'),
    agent: db.prepare<[string, string], AgentRecord>('SELECT * FROM agents WHERE pipeline_id = ? AND id = ?'),
    agents: db.prepare<[string], AgentRecord>(
      'SELECT * FROM agents WHERE pipeline_id = ? ORDER BY created_at, id',
    ),
    configuredAgentsOfType: db.prepare<[string], AgentRecord>(
      'SELECT * FROM agents WHERE type = ? AND host_credentials IS NOT NULL ORDER BY pipeline_id, id',
    ),
    insertBacklog: db.prepare(
      'INSERT INTO backlog (pipeline_id, agent_id, at, rows_to_read, minutes_left, versions_behind, measured_minutes_left) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ),
    pruneBacklog: db.prepare('DELETE FROM backlog WHERE pipeline_id = ? AND agent_id = ? AND at < ?'),
    idleSourceAgents: db.prepare<[], AgentRecord>(
      "SELECT * FROM agents WHERE state IN ('configured', 'paused', 'stopped', 'failed') AND role = 'source' ORDER BY pipeline_id, id",
    ),
    runningAgents: db.prepare<[], AgentRecord>(
      "SELECT * FROM agents WHERE state = 'running' AND role = 'source' ORDER BY pipeline_id, id",
    ),
    insertAgent: db.prepare(
      'INSERT INTO agents (pipeline_id, id, name, type, role, state, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    ),
    deleteAgent: db.prepare('DELETE FROM agents WHERE pipeline_id = ? AND id = ?'),
    putCredentials: db.prepare(
      'UPDATE agents SET host_credentials = ?, secrets_sealed = ?, secrets_set = ?, state = ?, failure_reason = ?, updated_at = ? WHERE pipeline_id = ? AND id = ?',
    ),
    putConfiguration: db.prepare(
      'UPDATE agents SET configuration = ?, state = ?, failure_reason = ?, updated_at = ? WHERE pipeline_id = ? AND id = ?',
    ),
    setState: db.prepare(
      'UPDATE agents SET state = ?, failure_reason = ?, updated_at = ? WHERE pipeline_id = ? AND id = ?',
    ),
    entities: db.prepare<[string], { definition: string }>(
      'SELECT definition FROM entities WHERE pipeline_id = ? ORDER BY position',
    ),
    deleteEntities: db.prepare('DELETE FROM entities WHERE pipeline_id = ?'),
    insertEntity: db.prepare('INSERT INTO entities (pipeline_id, position, definition) VALUES (?, ?, ?)'),
    pendingCopies: db.prepare<[string], { tbl: string; reason: string }>(
      'SELECT tbl, reason FROM pending_copies WHERE pipeline_id = ? ORDER BY tbl',
    ),
    addPendingCopy: db.prepare(
      'INSERT INTO pending_copies (pipeline_id, tbl, reason) VALUES (?, ?, ?) ON CONFLICT (pipeline_id, tbl) DO UPDATE SET reason = excluded.reason',
    ),
    clearPendingCopies: db.prepare('DELETE FROM pending_copies WHERE pipeline_id = ?'),
    insertEvent: db.prepare(
      'INSERT INTO events (pipeline_id, agent_id, at, kind, data) VALUES (?, ?, ?, ?, ?)',
    ),
    /** All but the newest `keep` events of a pipeline. */
    pruneEventsByCount: db.prepare(
      'DELETE FROM events WHERE pipeline_id = ? AND id <= (SELECT id FROM events WHERE pipeline_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?)',
    ),
    pruneEventsByAge: db.prepare('DELETE FROM events WHERE at < ?'),
    lastFailure: db.prepare<[string, string], { at: string; data: string }>(
      "SELECT at, data FROM events WHERE pipeline_id = ? AND agent_id = ? AND kind = 'failed' ORDER BY id DESC LIMIT 1",
    ),
    /** The newest settings change of any agent of the pipeline after its source's newest start. */
    settingsAfterStart: db.prepare<[string, string, string], { at: string }>(
      `SELECT at FROM events WHERE pipeline_id = ? AND kind IN ('credentials-replaced', 'configuration-replaced')
         AND id > coalesce((SELECT max(id) FROM events WHERE pipeline_id = ? AND agent_id = ?
           AND kind IN ('started', 'resumed-after-restart')), 0)
       ORDER BY id DESC LIMIT 1`,
    ),
    /** The credentials stored, and the sign-ons told with them, of the pipeline's agents since its source's start. */
    credentialsAfterStart: db.prepare<
      [string, string, string],
      { agent_id: string; at: string; kind: string; data: string }
    >(
      `SELECT agent_id, at, kind, data FROM events WHERE pipeline_id = ?
         AND kind IN ('credentials-replaced', 'credentials-signed-on')
         AND id > coalesce((SELECT max(id) FROM events WHERE pipeline_id = ? AND agent_id = ?
           AND kind IN ('started', 'resumed-after-restart')), 0)
       ORDER BY id`,
    ),
    lastSchemaChange: db.prepare<[string, string], { at: string; kind: string; data: string }>(
      "SELECT at, kind, data FROM events WHERE pipeline_id = ? AND agent_id = ? AND kind IN ('schema-changed', 'schema-change-withheld') ORDER BY id DESC LIMIT 1",
    ),
    insertVerify: db.prepare(
      'INSERT OR REPLACE INTO verify_reports (pipeline_id, agent_id, id, finished_at, report) VALUES (?, ?, ?, ?, ?)',
    ),
    /** All but the newest `keep` reports of an agent. */
    pruneVerify: db.prepare(
      `DELETE FROM verify_reports WHERE pipeline_id = ? AND agent_id = ? AND id NOT IN (
         SELECT id FROM verify_reports WHERE pipeline_id = ? AND agent_id = ? ORDER BY finished_at DESC, id LIMIT ?)`,
    ),
    verifyReports: db.prepare<[string, string], { report: string }>(
      'SELECT report FROM verify_reports WHERE pipeline_id = ? AND agent_id = ? ORDER BY finished_at DESC, id',
    ),
    backlog: db.prepare<
      [string, string, string],
      {
        at: string;
        rows_to_read: number | null;
        minutes_left: number | null;
        versions_behind: number | null;
        measured_minutes_left: number | null;
      }
    >(
      'SELECT at, rows_to_read, minutes_left, versions_behind, measured_minutes_left FROM backlog WHERE pipeline_id = ? AND agent_id = ? AND at >= ? ORDER BY at',
    ),
    // A batch's event counts its changes per source table (data.tables): summed per table.
    tableActivity: db.prepare<
      [string, string, string, string, string],
      { tbl: string; i: number; u: number; d: number; last: string }
    >(
      `SELECT t.key AS tbl,
         SUM(CASE WHEN e.at >= ? THEN coalesce(json_extract(t.value, '$.inserts'), 0) ELSE 0 END) AS i,
         SUM(CASE WHEN e.at >= ? THEN coalesce(json_extract(t.value, '$.updates'), 0) ELSE 0 END) AS u,
         SUM(CASE WHEN e.at >= ? THEN coalesce(json_extract(t.value, '$.deletes'), 0) ELSE 0 END) AS d,
         MAX(e.at) AS last
       FROM events e, json_each(e.data, '$.tables') t
       WHERE e.pipeline_id = ? AND e.agent_id = ? AND e.kind = 'batch-applied'
       GROUP BY t.key ORDER BY t.key`,
    ),
    pipelineEvents: db.prepare<
      [string, number],
      { id: number; agent_id: string | null; at: string; kind: string; data: string }
    >(
      'SELECT * FROM (SELECT id, agent_id, at, kind, data FROM events WHERE pipeline_id = ? ORDER BY id DESC LIMIT ?) ORDER BY id',
    ),
    recentEvents: db.prepare<
      [number],
      { id: number; pipeline_id: string; agent_id: string | null; at: string; kind: string; data: string }
    >('SELECT * FROM (SELECT * FROM events ORDER BY id DESC LIMIT ?) ORDER BY id'),
    lastChecks: db.prepare<[], { pipeline_id: string; agent_id: string; at: string; data: string }>(
      // A fix answers the checks run again after it: that is the latest result too.
      `SELECT e.pipeline_id, e.agent_id, e.at, e.data FROM events e WHERE e.kind IN (${CHECK_KINDS}) AND e.id = ` +
        `(SELECT MAX(id) FROM events x WHERE x.kind IN (${CHECK_KINDS}) AND x.pipeline_id = e.pipeline_id AND x.agent_id = e.agent_id) ORDER BY e.pipeline_id, e.agent_id`,
    ),
    allBacklog: db.prepare<
      [string],
      {
        pipeline_id: string;
        agent_id: string;
        at: string;
        rows_to_read: number | null;
        minutes_left: number | null;
        versions_behind: number | null;
        measured_minutes_left: number | null;
      }
    >('SELECT * FROM backlog WHERE at >= ? ORDER BY pipeline_id, agent_id, at'),
    allSealed: db.prepare<[], { pipeline_id: string; id: string; secrets_sealed: string }>(
      'SELECT pipeline_id, id, secrets_sealed FROM agents WHERE secrets_sealed IS NOT NULL',
    ),
    meta: db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?'),
    setMeta: db.prepare(
      'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
    ),
  };

  const sincePrune = new Map<string, number>();
  return {
    transaction: <T>(fn: () => T): T => db.transaction(fn)(),

    pipeline: (id: string) => {
      const row = q.pipeline.get(id);
      return row && toPipeline(row);
    },
    pipelines: () => q.pipelines.all().map(toPipeline),
    createPipeline: (p: { id: string; name: string }, at: string) => {
      q.insertPipeline.run(p.id, p.name, at, at);
      return toPipeline({ id: p.id, name: p.name, created_at: at, updated_at: at });
    },
    deletePipeline: (id: string) => q.deletePipeline.run(id).changes > 0,

    storedAgent: (pipelineId: string, id: string): StoredAgent | undefined => {
      const record = q.agent.get(pipelineId, id);
      return record && toStoredAgent(record);
    },
    agents: (pipelineId: string) => q.agents.all(pipelineId).map((r) => toAgent(toStoredAgent(r))),
    storedAgents: (pipelineId: string) => q.agents.all(pipelineId).map(toStoredAgent),
    /** Agents of a type whose credentials are stored, with every field but the secrets. */
    configuredAgentsOfType: (type: AgentType) => q.configuredAgentsOfType.all(type).map(toStoredAgent),
    runningAgents: () => q.runningAgents.all().map(toStoredAgent),
    /** Source agents set up but not running (stopped, paused or failed): their backlog grows unread. */
    idleSourceAgents: () => q.idleSourceAgents.all().map(toStoredAgent),
    createAgent: (
      a: { pipelineId: string; id: string; name: string; type: AgentType; role: 'source' | 'target' },
      at: string,
    ) => {
      q.insertAgent.run(a.pipelineId, a.id, a.name, a.type, a.role, 'new', at, at);
    },
    deleteAgent: (pipelineId: string, id: string) => q.deleteAgent.run(pipelineId, id).changes > 0,
    putCredentials: (
      a: StoredAgent,
      plain: object,
      sealed: string,
      state: AgentState,
      at: string,
      secretsSet: readonly string[] | null = null,
    ) =>
      q.putCredentials.run(
        JSON.stringify(plain),
        sealed,
        secretsSet && JSON.stringify(secretsSet),
        state,
        state === 'failed' ? a.failureReason : null,
        at,
        a.pipelineId,
        a.id,
      ),
    putConfiguration: (a: StoredAgent, configuration: object, state: AgentState, at: string) =>
      q.putConfiguration.run(
        JSON.stringify(configuration),
        state,
        state === 'failed' ? a.failureReason : null,
        at,
        a.pipelineId,
        a.id,
      ),
    setState: (a: StoredAgent, state: AgentState, reason: string | null, at: string) =>
      q.setState.run(state, reason, at, a.pipelineId, a.id),

    entities: (pipelineId: string) =>
      q.entities.all(pipelineId).map((r) => JSON.parse(r.definition) as Entity),
    replaceEntities: (pipelineId: string, entities: readonly Entity[]) => {
      q.deleteEntities.run(pipelineId);
      entities.forEach((e, i) => q.insertEntity.run(pipelineId, i, JSON.stringify(e)));
    },
    /** Tables to copy again at the pipeline's next Start, with why (their shaping changed meanwhile). */
    pendingCopies: (pipelineId: string) =>
      q.pendingCopies.all(pipelineId).map((r) => ({ table: r.tbl, reason: r.reason })),
    addPendingCopy: (pipelineId: string, table: string, reason: string) =>
      q.addPendingCopy.run(pipelineId, table, reason),
    clearPendingCopies: (pipelineId: string) => q.clearPendingCopies.run(pipelineId),

    /** Keeps an event; every PRUNE_EVERY events of a pipeline, its oldest beyond the limits go. */
    addEvent: (
      pipelineId: string,
      agentId: string | null,
      // Only kinds that have words (shared/eventText.ts): the compiler refuses one that has none.
      kind: EventKind,
      data: object,
      at: string,
    ): number => {
      const id = Number(
        q.insertEvent.run(pipelineId, agentId, at, kind, JSON.stringify(data)).lastInsertRowid,
      );
      const added = (sincePrune.get(pipelineId) ?? 0) + 1;
      sincePrune.set(pipelineId, added % PRUNE_EVERY);
      if (added < PRUNE_EVERY) return id;
      q.pruneEventsByCount.run(pipelineId, pipelineId, retention.keepEvents);
      q.pruneEventsByAge.run(new Date(Date.parse(at) - retention.keepEventDays * DAY_MS).toISOString());
      return id;
    },
    /** The agent's latest failure among the events kept. */
    lastFailure: (pipelineId: string, agentId: string): { at: string; reason: string } | null => {
      const row = q.lastFailure.get(pipelineId, agentId);
      if (!row) return null;
      const data = safeJson(row.data) as { reason?: unknown } | undefined;
      return { at: row.at, reason: typeof data?.reason === 'string' ? data.reason : 'failed' };
    },
    /**
     * When settings of the pipeline (its source's or its target's) were stored after the source last
     * started: the running pipeline does not hold them yet. Null when it does.
     */
    settingsPendingSince: (pipelineId: string, sourceAgentId: string): string | null =>
      q.settingsAfterStart.get(pipelineId, pipelineId, sourceAgentId)?.at ?? null,
    /**
     * Whether the credentials stored since the source last started signed on when stored, the worst
     * first: one that failed, then one stored with no sign-on tried, then all passed. Null when none
     * were stored since.
     */
    pendingSignOn: (pipelineId: string, sourceAgentId: string): PendingSignOn | null => {
      const latest = new Map<string, PendingSignOn>();
      for (const row of q.credentialsAfterStart.all(pipelineId, pipelineId, sourceAgentId)) {
        const data = safeJson(row.data) as { status?: unknown; message?: unknown } | undefined;
        latest.set(
          row.agent_id,
          row.kind === 'credentials-replaced'
            ? { agentId: row.agent_id, at: row.at, outcome: 'untried', message: '' }
            : {
                agentId: row.agent_id,
                at: row.at,
                outcome: data?.status === 'passed' ? 'passed' : 'failed',
                message: typeof data?.message === 'string' ? data.message : '',
              },
        );
      }
      const all = [...latest.values()];
      return (
        all.find((p) => p.outcome === 'failed') ?? all.find((p) => p.outcome === 'untried') ?? all[0] ?? null
      );
    },
    /** The agent's latest schema change among the events kept, applied or withheld. */
    lastSchemaChange: (pipelineId: string, agentId: string) => {
      const row = q.lastSchemaChange.get(pipelineId, agentId);
      if (!row) return null;
      const data = safeJson(row.data) as { table?: unknown; reason?: unknown } | undefined;
      return {
        at: row.at,
        table: typeof data?.table === 'string' ? data.table : '',
        reason: typeof data?.reason === 'string' ? data.reason : row.kind,
        withheld: row.kind === 'schema-change-withheld',
      };
    },
    /** Keeps a finished verify or repair; the newest VERIFY_REPORTS_KEPT of the agent stay. */
    addVerifyReport: (pipelineId: string, agentId: string, report: VerifyReport) => {
      q.insertVerify.run(
        pipelineId,
        agentId,
        report.id,
        report.finishedAt ?? report.requestedAt,
        JSON.stringify(report),
      );
      q.pruneVerify.run(pipelineId, agentId, pipelineId, agentId, VERIFY_REPORTS_KEPT);
    },
    /** The agent's kept reports, newest first; one that no longer parses (an older shape) is left out. */
    verifyReports: (pipelineId: string, agentId: string): VerifyReport[] =>
      q.verifyReports.all(pipelineId, agentId).flatMap(({ report }) => {
        const parsed = verifyReportSchema.safeParse(safeJson(report));
        return parsed.success ? [parsed.data] : [];
      }),
    /** Applies the limits now (at start-up: a store from before them, or limits made tighter). */
    pruneEvents: (now: string) => {
      for (const { id } of q.pipelines.all()) q.pruneEventsByCount.run(id, id, retention.keepEvents);
      q.pruneEventsByAge.run(new Date(Date.parse(now) - retention.keepEventDays * DAY_MS).toISOString());
    },
    /** A backlog point of a running agent; points older than a day go. */
    addBacklog: (
      pipelineId: string,
      agentId: string,
      at: string,
      point: {
        rowsToRead: number | null;
        minutesLeft: number | null;
        versionsBehind: number | null;
        measuredMinutesLeft?: number | null;
      },
    ) => {
      q.insertBacklog.run(
        pipelineId,
        agentId,
        at,
        point.rowsToRead,
        point.minutesLeft,
        point.versionsBehind,
        point.measuredMinutesLeft ?? null,
      );
      q.pruneBacklog.run(pipelineId, agentId, new Date(Date.parse(at) - 86_400_000).toISOString());
    },
    backlogSince: (pipelineId: string, agentId: string, since: string) =>
      q.backlog.all(pipelineId, agentId, since).map((r) => ({
        at: r.at,
        rowsToRead: r.rows_to_read,
        minutesLeft: r.minutes_left,
        versionsBehind: r.versions_behind,
        measuredMinutesLeft: r.measured_minutes_left,
      })),

    /** Per source table: changes applied since `since`, and the last batch of it among the events kept. */
    tableActivity: (pipelineId: string, agentId: string, since: string): TableActivity[] =>
      q.tableActivity.all(since, since, since, pipelineId, agentId).map((r) => ({
        table: r.tbl,
        inserts: Number(r.i),
        updates: Number(r.u),
        deletes: Number(r.d),
        lastChangeAt: r.last,
      })),
    pipelineEvents: (pipelineId: string, limit: number) =>
      q.pipelineEvents.all(pipelineId, limit).map((r) => ({
        id: r.id,
        agentId: r.agent_id,
        at: r.at,
        kind: r.kind,
        data: JSON.parse(r.data) as Record<string, unknown>,
      })),
    recentEvents: (limit: number) =>
      q.recentEvents.all(limit).map((r) => ({
        id: r.id,
        pipelineId: r.pipeline_id,
        agentId: r.agent_id,
        at: r.at,
        kind: r.kind,
        data: JSON.parse(r.data) as unknown,
      })),
    lastChecks: () =>
      q.lastChecks.all().map((r) => ({
        pipelineId: r.pipeline_id,
        agentId: r.agent_id,
        at: r.at,
        data: JSON.parse(r.data) as unknown,
      })),
    /** Every agent's backlog points since then, oldest first per agent. */
    backlogSinceForAll: (since: string) =>
      q.allBacklog.all(since).map((r) => ({
        pipelineId: r.pipeline_id,
        agentId: r.agent_id,
        at: r.at,
        rowsToRead: r.rows_to_read,
        minutesLeft: r.minutes_left,
        versionsBehind: r.versions_behind,
        measuredMinutesLeft: r.measured_minutes_left,
      })),
    /** Every agent's sealed secrets, with what they were sealed for. */
    sealedSecrets: () =>
      q.allSealed
        .all()
        .map((r) => ({ pipelineId: r.pipeline_id, id: r.id, secretsSealed: r.secrets_sealed })),
    meta: (key: string) => q.meta.get(key)?.value,
    setMeta: (key: string, value: string) => q.setMeta.run(key, value),
  };
}

export type Repo = ReturnType<typeof createRepo>;
