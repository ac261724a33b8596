// POST …/tables/columns: what a table is made of on both sides — the source's columns as the runner
// describes them, and the type the pipeline's target declares for each (a table's story in the app);
// on demand, the table's first rows as the target gets them (masked, renamed, filtered).
import { parseWith } from '../../shared/config/parse';
import { columnsQuerySchema, type ColumnsAnswer } from '../../shared/controlApi';
import { Buffer } from 'node:buffer';
import type { Entity } from '../../shared/controlApi';
import { tableKey, tableRefOf, type ColumnShape, type RowValue } from '../agents/source';
import type { ResolvedAgent } from '../agents/spi';
import { portable } from '../agents/targetValues';
import { DEFAULT_TARGET_TYPE, pluginOf } from '../agents/registry';
import { problem } from '../platform/problem';
import { maskText, provenanceOf, tableModeText } from '../../shared/shaping';
import { tableShaping, type TableShaping } from '../runner/shaping/tableShaping';
import {
  agentOr404,
  configured,
  ok,
  parsedOr422,
  resolve,
  type EngineDeps,
  type Operations,
} from './operationKit';

/** Rows read for a sample: enough that a filter the source cannot decide still leaves some. */
const SAMPLE_READ = 500;

/** A value as the sample shows it: as the target writes it, bytes in hex. */
function sampleText(c: ColumnShape, v: RowValue | undefined): string | null {
  const p = portable(c, v ?? null);
  if (p === null) return null;
  return p instanceof Uint8Array ? Buffer.from(p).toString('hex') : String(p);
}

/** The table's first rows as the target gets them: read as a copy reads, then shaped. */
async function sampleOf(
  deps: EngineDeps,
  agent: ResolvedAgent,
  entities: readonly Entity[],
  shaping: TableShaping,
  rows: number,
): Promise<NonNullable<ColumnsAnswer['tables'][number]['sample']>> {
  const read =
    (await deps.runtime.sample?.(agent, entities, shaping.shape.ref, SAMPLE_READ, shaping.rowFilter)) ?? [];
  const columns = shaping.shape.columns.filter((c) => !c.provenance);
  const passing = read.filter((r) => shaping.passes(r)).slice(0, rows);
  return {
    columns: columns.map((c) => c.name),
    rows: passing.map((r) => {
      const shaped = shaping.row(r, { operation: 'copy' });
      return columns.map((c) => sampleText(c, shaped[c.name]));
    }),
    read: read.length,
  };
}

export const columnOperations: Pick<Operations, 'describeTableColumns'> = {
  describeTableColumns: async ({ params, body }, deps) => {
    const row = agentOr404(deps, params);
    const query = parsedOr422(parseWith(columnsQuerySchema, body));
    const agent = await configured(deps, row);
    if (agent.role !== 'source')
      throw problem.conflict(
        `Agent "${row.id}" is a target: its pipeline's source agent describes the tables.`,
      );
    const entities = deps.repo.entities(row.pipelineId);
    const asked = entities.filter((e) => query.tables.includes(tableKey(tableRefOf(e))));
    const shapes = asked.length
      ? ((await deps.runtime.columns?.(agent, entities, asked.map(tableRefOf))) ?? [])
      : [];
    const targetRow = deps.repo.storedAgents(row.pipelineId).find((a) => a.role === 'target');
    const targetAgent = targetRow ? await resolve(deps, targetRow) : undefined;
    const targetType = targetRow?.type ?? DEFAULT_TARGET_TYPE;
    const declare = pluginOf(deps.plugins, targetType).target?.columnType;
    const salt =
      typeof agent.hostCredentials.maskSalt === 'string' ? agent.hostCredentials.maskSalt : undefined;
    const provenance = provenanceOf(agent.configuration);
    const tables: ColumnsAnswer['tables'] = [];
    for (const shape of shapes) {
      const entity = asked.find((e) => tableKey(tableRefOf(e)) === tableKey(shape.ref));
      if (!entity) continue;
      // The table as the runner will shape it: names, masked types and added columns at the target.
      const shaping = tableShaping(entity, shape, salt, provenance);
      const shaped = shaping.shape;
      const problem = shaped.cannotShape ?? null;
      const atTarget = (name: string) =>
        problem === null
          ? shaped.columns.find((c) => (c.shapedFrom ?? c.name) === name && !c.provenance)
          : undefined;
      const shapingOf = (name: string) =>
        Object.entries(entity.columnShaping ?? {}).find(([n]) => n.toLowerCase() === name.toLowerCase())?.[1];
      const sample =
        query.sampleRows !== undefined && problem === null
          ? await sampleOf(deps, agent, entities, shaping, query.sampleRows)
          : null;
      tables.push({
        table: tableKey(shape.ref),
        targetTable: entity.target.table,
        columns: shape.columns.map((c) => {
          const there = atTarget(c.name);
          const mask = shapingOf(c.name)?.mask;
          const left = entity.columns !== undefined && problem === null && !there;
          return {
            name: c.name,
            sourceType: c.sourceType,
            nullable: there?.nullable ?? c.nullable,
            key: shape.key.includes(c.name),
            targetType: declare && !left ? declare(there ?? c, targetAgent) : null,
            targetName: left ? null : (there?.name ?? c.name),
            mask: mask ? maskText(mask) : null,
          };
        }),
        added: shaped.columns
          .filter((c) => c.provenance)
          .map((c) => ({ name: c.name, targetType: declare ? declare(c, targetAgent) : null })),
        rowFilter: entity.rowFilter ?? null,
        skipsDeletes: entity.skipOperations?.includes('delete') ?? false,
        mode: entity.tableMode && entity.tableMode.kind !== 'live' ? tableModeText(entity.tableMode) : null,
        forceCcsid: entity.forceCcsid ?? null,
        textOrder: entity.textOrder ?? null,
        shapingProblem: problem,
        sample,
      });
    }
    const found = new Set(tables.map((t) => t.table));
    return ok({
      agentId: row.id,
      targetType,
      tables,
      missing: query.tables.filter((t) => !found.has(t)),
    });
  },
};
