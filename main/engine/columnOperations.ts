// POST …/tables/columns: what a table is made of on both sides — the source's columns as the runner
// describes them, and the type the pipeline's target declares for each (a table's story in the app).
import { parseWith } from '../../shared/config/parse';
import { columnsQuerySchema, type ColumnsAnswer } from '../../shared/controlApi';
import { tableKey, tableRefOf } from '../agents/source';
import { DEFAULT_TARGET_TYPE, pluginOf } from '../agents/registry';
import { problem } from '../platform/problem';
import { maskText, provenanceOf, tableModeText } from '../../shared/shaping';
import { tableShaping } from '../runner/shaping/tableShaping';
import { agentOr404, configured, ok, parsedOr422, resolve, type Operations } from './operationKit';

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
    const tables: ColumnsAnswer['tables'] = shapes.flatMap((shape) => {
      const entity = asked.find((e) => tableKey(tableRefOf(e)) === tableKey(shape.ref));
      if (!entity) return [];
      // The table as the runner will shape it: names, masked types and added columns at the target.
      const shaped = tableShaping(entity, shape, salt, provenance).shape;
      const problem = shaped.cannotShape ?? null;
      const atTarget = (name: string) =>
        problem === null
          ? shaped.columns.find((c) => (c.shapedFrom ?? c.name) === name && !c.provenance)
          : undefined;
      const shapingOf = (name: string) =>
        Object.entries(entity.columnShaping ?? {}).find(([n]) => n.toLowerCase() === name.toLowerCase())?.[1];
      return [
        {
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
          shapingProblem: problem,
        },
      ];
    });
    const found = new Set(tables.map((t) => t.table));
    return ok({
      agentId: row.id,
      targetType,
      tables,
      missing: query.tables.filter((t) => !found.has(t)),
    });
  },
};
