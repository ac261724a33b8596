// The one place that decides whether a set of names can live together: run on every PUT of entities,
// every settings PUT and every start. Names are compared as each database compares them (the plugins'
// TargetNames and SourceNames), so that no entity writes the engine's own tables, reads the agent's
// own objects, or shares a target table with another entity of any pipeline writing to that database.
// A body that breaks a rule by itself is a 422 naming the field; a clash with what is stored (another
// entity, another pipeline) is a 409 naming the other.
import type { Entity } from '../../shared/controlApi';
import type { Problem } from '../../shared/config/problems';
import { showValue } from '../../shared/config/problems';
import { tableText } from '../../shared/names';
import { DEFAULT_TARGET_TYPE, pluginOf } from '../agents/registry';
import type { AgentSettings, SourceNames, TargetNames } from '../agents/spi';
import { problem, ProblemError } from '../platform/problem';
import type { EngineDeps } from './operationKit';
import { ownFileClash } from '../platform/ownFiles';
import type { StoredAgent } from './store/repo';

/** What is about to be stored: a pipeline's new entities, or an agent's new settings. */
export interface NameChange {
  pipelineId: string;
  entities?: readonly Entity[];
  agent?: { id: string; settings: Partial<AgentSettings> };
  /** An agent not stored yet (a validate-only request), seen in its pipeline as if it were. */
  proposed?: StoredAgent;
}

interface SourceView {
  row: StoredAgent;
  settings: AgentSettings;
  names: SourceNames;
}

interface PipelineView {
  id: string;
  entities: readonly Entity[];
  sources: SourceView[];
  target: {
    type: string;
    /** The target agent's id; undefined for the registry's default target. */
    agentId: string | undefined;
    settings: AgentSettings | undefined;
    names: TargetNames;
    database: string;
    file: string | undefined;
  };
}

const settingsOf = (row: StoredAgent, change: NameChange): AgentSettings => {
  const mine = change.agent && change.pipelineId === row.pipelineId && change.agent.id === row.id;
  return {
    hostCredentials: (mine && change.agent?.settings.hostCredentials) || row.hostCredentials || {},
    configuration: (mine && change.agent?.settings.configuration) || row.configuration || {},
  };
};

function viewOf(deps: EngineDeps, pipelineId: string, change: NameChange): PipelineView {
  const { proposed } = change;
  const agents =
    proposed?.pipelineId === pipelineId
      ? [...deps.repo.storedAgents(pipelineId).filter((a) => a.id !== proposed.id), proposed]
      : deps.repo.storedAgents(pipelineId);
  const targetRow = agents.find((a) => a.role === 'target');
  const type = targetRow?.type ?? DEFAULT_TARGET_TYPE;
  const names = pluginOf(deps.plugins, type).target?.names;
  if (!names) throw new Error(`Agent type "${type}" declares no target names.`);
  const settings = targetRow ? settingsOf(targetRow, change) : undefined;
  const context = { dataDir: deps.dataDir, pipelineId };
  // A target agent without credentials yet writes nowhere: it meets no other pipeline's tables.
  const nowhere = targetRow !== undefined && Object.keys(settings?.hostCredentials ?? {}).length === 0;
  const sources = agents.flatMap((row): SourceView[] => {
    const sourceNames = row.role === 'source' ? pluginOf(deps.plugins, row.type).source?.names : undefined;
    return sourceNames ? [{ row, settings: settingsOf(row, change), names: sourceNames }] : [];
  });
  return {
    id: pipelineId,
    entities:
      change.entities && change.pipelineId === pipelineId ? change.entities : deps.repo.entities(pipelineId),
    sources,
    target: {
      type,
      agentId: targetRow?.id,
      settings,
      names,
      database: nowhere ? `unconfigured:${pipelineId}` : `${type}:${names.database(settings, context)}`,
      file: nowhere ? undefined : names.file?.(settings, context),
    },
  };
}

/** An entity's target table as its target compares names: one text per table of that database. */
function targetTableOf(view: PipelineView, e: Entity): string {
  const { names, settings } = view.target;
  const source = view.sources[0];
  if (names.writes) return names.writes(e, source?.names.database?.(source.settings) ?? null, settings).name;
  const schema = e.target.schema ?? names.defaultSchema(settings);
  return tableText(names.fold(schema ?? ''), names.fold(e.target.table));
}

/** Two entities declared members of one shard: the same column, as the target compares names, and values apart. */
const shardMates = (a: Entity, b: Entity, fold: (name: string) => string): boolean =>
  a.shard !== undefined &&
  b.shard !== undefined &&
  fold(a.shard.column) === fold(b.shard.column) &&
  a.shard.value !== b.shard.value;

const entityText = (e: Entity) =>
  `${tableText(e.source.schema, e.source.table)} → ${e.target.schema !== undefined ? tableText(e.target.schema, e.target.table) : e.target.table}`;

const invalid = (pointer: string, received: unknown, rule: string, message: string): Problem => ({
  pointer,
  received: showValue(received),
  rule,
  message,
});

/** The rules one pipeline's entities and agents break among themselves (entities counted from 1 in words; pointers from 0). */
function ownProblems(view: PipelineView): Problem[] {
  const out: Problem[] = [];
  const { names, type } = view.target;
  const seenTargets = new Map<string, number[]>();
  const seenSources = new Map<string, number>();
  view.entities.forEach((e, i) => {
    const at = `/entities/${i}`;
    if (e.target.schema !== undefined && !names.schemas)
      out.push(
        invalid(
          `${at}/target/schema`,
          e.target.schema,
          `left out for a ${type} target, which has no schemas`,
          `target.schema "${e.target.schema}" of entity ${i + 1} cannot be honoured: a ${type} target has no schemas, so leave it out (tables that differ only in schema would be one table).`,
        ),
      );
    const reserved = names.reserved(
      e.target.schema ?? names.defaultSchema(view.target.settings),
      e.target.table,
    );
    if (reserved)
      out.push(
        invalid(
          `${at}/target/table`,
          e.target.table,
          'not a name the engine keeps for itself',
          `target ${entityText(e)} of entity ${i + 1} is ${reserved}; choose another name.`,
        ),
      );
    const target = targetTableOf(view, e);
    const before = seenTargets.get(target) ?? [];
    seenTargets.set(target, [...before, i]);
    // Members of one shard may share their table (docs/shaping.md): the same column, values apart.
    const other = before.find((j) => !shardMates(view.entities[j] as Entity, e, names.fold));
    if (other !== undefined) {
      const them = view.entities[other] as Entity;
      const sameValue = them.shard && e.shard && them.shard.value === e.shard.value;
      out.push(
        invalid(
          `${at}/target/table`,
          e.target.table,
          `a target table no other entity writes, compared as ${type} compares names, unless both are members of one shard`,
          sameValue
            ? `Entities ${other + 1} (${entityText(them)}) and ${i + 1} (${entityText(e)}) are members of one shard with the same value "${e.shard?.value ?? ''}": their rows would meet. Give each member its own value.`
            : `Entities ${other + 1} (${entityText(them)}) and ${i + 1} (${entityText(e)}) would write one table: ${type} takes both names for the same table. To write several source tables into one table on purpose, declare each a member of one shard (shard.column alike, shard.value its own).`,
        ),
      );
    }
    for (const source of view.sources) {
      const why = source.names.reserved(e, source.settings);
      if (why)
        out.push(
          invalid(
            `${at}/source`,
            e.source,
            "not one of the source agent's own objects",
            `Entity ${i + 1} reads ${tableText(e.source.schema, e.source.table)}, which ${why}`,
          ),
        );
      const key = `${source.row.id}\u0000${source.names.fold(e.source.schema, e.source.table)}`;
      const first = seenSources.get(key);
      if (first === undefined) seenSources.set(key, i);
      else
        out.push(
          invalid(
            `${at}/source`,
            e.source,
            'each source table at most once per pipeline, compared as the source compares names',
            `Entities ${first + 1} (${entityText(view.entities[first] as Entity)}) and ${i + 1} (${entityText(e)}) read the same source table: a table is replicated by one entity of a pipeline.`,
          ),
        );
    }
  });
  return out;
}

/** Entities of other pipelines writing a table of the same database: the first clash, in words. */
function otherPipelineClash(deps: EngineDeps, view: PipelineView, change: NameChange): string | null {
  for (const other of deps.repo.pipelines()) {
    if (other.id === view.id) continue;
    const theirs = viewOf(deps, other.id, change);
    if (theirs.target.database !== view.target.database) continue;
    const tables = new Map(theirs.entities.map((e, j) => [targetTableOf(theirs, e), j]));
    for (const [i, e] of view.entities.entries()) {
      const j = tables.get(targetTableOf(view, e));
      if (j === undefined) continue;
      const source = view.sources[0];
      const written = view.target.names.writes?.(
        e,
        source?.names.database?.(source.settings) ?? null,
        view.target.settings,
      );
      if (written)
        return (
          `Entity ${i + 1} (${entityText(e)}) of pipeline "${view.id}" and entity ${j + 1} ` +
          `(${entityText(theirs.entities[j] as Entity)}) of pipeline "${other.id}" would publish to one ${written.what}: their events would interleave. Give one pipeline another subject prefix or stream.`
        );
      return (
        `Entity ${i + 1} (${entityText(e)}) of pipeline "${view.id}" and entity ${j + 1} ` +
        `(${entityText(theirs.entities[j] as Entity)}) of pipeline "${other.id}" would write one table of the same ${view.target.type} database: ${view.target.type} takes both names for the same table. Give one of them another target table.`
      );
    }
  }
  return null;
}

/**
 * Refuses a change whose names cannot live together, before anything is stored. `change` without
 * entities or agent settings checks what is stored (a start).
 */
export function checkNames(deps: EngineDeps, change: NameChange): void {
  const view = viewOf(deps, change.pipelineId, change);
  const changedTarget = change.agent !== undefined && change.agent.id === view.target.agentId;
  if (view.target.file) {
    const why = ownFileClash(deps, view.target.file);
    if (why) {
      const message = `The target file ${view.target.file} ${why}; a replica never writes the engine's own files.`;
      if (changedTarget)
        throw problem.invalid([
          invalid(
            '/hostCredentials/path',
            view.target.file,
            "a file that is not one of the engine's own",
            message,
          ),
        ]);
      throw problem.conflict(message);
    }
  }
  const own = ownProblems(view);
  if (own.length > 0) {
    // The entities' own body is at fault: 422. Settings that make stored entities clash: 409.
    if (change.entities) throw problem.invalid(own);
    throw problem.conflict(own.map((p) => p.message).join(' '));
  }
  const clash = otherPipelineClash(deps, view, change);
  if (clash) throw problem.conflict(clash);
}

export const NAMES_REMEDY =
  "Give the entities other target tables, or change the setting named, so that no two of them meet and none names the engine's or the agent's own objects.";

/** Why what is stored for a pipeline breaks a name rule, in words; null when nothing does. */
export function nameClash(deps: EngineDeps, pipelineId: string): string | null {
  try {
    checkNames(deps, { pipelineId });
    return null;
  } catch (error) {
    // With nothing changed every refusal is a 409 whose detail says all of it.
    if (error instanceof ProblemError) return error.problem.detail;
    throw error;
  }
}
