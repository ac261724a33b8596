// The source's catalogue, for choosing the tables of a pipeline: the agent reads every table once per
// request (sys.tables, QSYS2.SYSTABLES: thousands of rows are one query), and the engine filters and
// pages it, so a client never holds more than a page.
import { parseWith } from '../../shared/config/parse';
import {
  catalogQuerySchema,
  type CatalogAnswer,
  type CatalogQuery,
  type CatalogTable,
} from '../../shared/controlApi';
import { problem } from '../platform/problem';
import { agentOr404, configured, ok, parsedOr422, sourceAgentOr409, type Operations } from './operationKit';

/** (schema, table) in code-unit order: the same order on every page, whatever the source's collation. */
const order = (a: readonly [string, string], b: readonly [string, string]) =>
  a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0;
const keyOf = (t: CatalogTable) => [t.schema, t.table] as const;

function cursorOf(text: string): readonly [string, string] {
  try {
    const parsed: unknown = JSON.parse(text);
    if (Array.isArray(parsed) && parsed.length === 2 && parsed.every((p) => typeof p === 'string'))
      return [parsed[0] as string, parsed[1] as string];
  } catch {
    // Answered below.
  }
  throw problem.invalid([
    {
      pointer: '/after',
      received: text.slice(0, 60),
      rule: 'the "next" of an earlier answer',
      message: 'after must be the "next" of an earlier answer, as it was given.',
    },
  ]);
}

/** One page of the catalogue: the tables matching the query after its cursor, and the schemas. */
function catalogPage(agentId: string, all: readonly CatalogTable[], q: CatalogQuery): CatalogAnswer {
  const sorted = [...all].sort((a, b) => order(keyOf(a), keyOf(b)));
  const counts = new Map<string, number>();
  for (const t of sorted) counts.set(t.schema, (counts.get(t.schema) ?? 0) + 1);
  const needle = q.search?.toLowerCase();
  const matching = sorted.filter(
    (t) =>
      (q.schema === undefined || t.schema === q.schema) &&
      (!needle || `${t.schema}.${t.table}`.toLowerCase().includes(needle)),
  );
  const after = q.after ? cursorOf(q.after) : null;
  const from = after ? matching.findIndex((t) => order(keyOf(t), after) > 0) : 0;
  const tables = from < 0 ? [] : matching.slice(from, from + q.limit);
  const last = tables.at(-1);
  const more = from >= 0 && from + q.limit < matching.length;
  return {
    agentId,
    tables,
    next: more && last ? JSON.stringify(keyOf(last)) : null,
    matching: matching.length,
    schemas: [...counts].map(([schema, tables]) => ({ schema, tables })),
  };
}

export const catalogOperations: Pick<Operations, 'searchCatalog'> = {
  searchCatalog: async ({ params, body }, deps) => {
    const query = parsedOr422(parseWith(catalogQuerySchema, body ?? {}));
    // Not configured yet: configured() answers the 409 that says which PUT is missing.
    const agent =
      (await sourceAgentOr409(deps, params, 'reads the catalogue')) ??
      (await configured(deps, agentOr404(deps, params)));
    const all = await deps.runtime.catalog(agent, deps.repo.entities(agent.pipelineId));
    return ok(catalogPage(agent.id, all, query));
  },
};
