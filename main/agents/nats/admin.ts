// The stream as the app's screens ask of a source: checks, the tables it carries (its subjects, read back
// through the escape rule), their columns, and the backlog of each table's consumer.
import type { NatsConfiguration } from '../../../shared/agents/nats';
import type { CatalogTable, Entity, TableState } from '../../../shared/controlApi';
import { tableKey } from '../source';
import type { SourceAdmin } from '../spi';
import type { NatsSource } from './source';
import { unescapeToken } from './subjects';

/** The table a subject names, or null for the target's own subjects and other shapes. */
export function tableOfSubject(
  subject: string,
  c: NatsConfiguration,
): { schema: string; table: string } | null {
  const prefix = `${c.subjectPrefix}.`;
  if (!subject.startsWith(prefix)) return null;
  const tokens = subject.slice(prefix.length).split('.');
  const expected = c.sourceDatabase ? 3 : 2;
  if (tokens.length !== expected) return null;
  try {
    const parts = tokens.map(unescapeToken);
    if (c.sourceDatabase && parts[0] !== c.sourceDatabase) return null;
    const [schema, table] = parts.slice(-2) as [string, string];
    return { schema, table };
  } catch {
    return null;
  }
}

export function natsAdmin(
  source: NatsSource,
  c: NatsConfiguration,
  entities: readonly Entity[],
): SourceAdmin {
  return {
    check: (entities) => source.check(entities),
    tables: async (entities: readonly Entity[]): Promise<TableState[]> => {
      const shapes = await source.describe(entities.map((e) => e.source));
      return entities.map((e) => {
        const shape = shapes.find((s) => tableKey(s.ref) === tableKey(e.source));
        return {
          table: tableKey(e.source),
          exists: shape !== undefined,
          rowIdentification: 'primary key',
          primaryKey: shape?.key ?? [],
          changeTracking: null,
          journalImages: null,
          journal: null,
          problem: shape ? null : 'no event of this table is on the stream yet',
        };
      });
    },
    catalog: async (): Promise<CatalogTable[]> =>
      (await source.subjects()).flatMap(({ subject, messages }) => {
        const t = tableOfSubject(subject, c);
        return t
          ? [
              {
                ...t,
                rows: messages,
                primaryKey: [],
                changeTracking: null,
                journal: null,
                journalImages: null,
                problem: null,
                fix: null,
              },
            ]
          : [];
      }),
    columns: (refs) => source.describe(refs),
    // What the consumers acknowledged: the positions the applying engines committed.
    loadCheckpoint: () => source.acknowledgedPositions(entities.map((e) => e.source)),
    backlog: async (entities, checkpoint) => {
      const b = await source.backlog(
        entities.map((e) => e.source),
        checkpoint,
      );
      return {
        rowsToRead: b.rowsToRead,
        minutesLeft: null,
        versionsBehind: b.versionsBehind,
        perTable: b.perTable,
      };
    },
    applyFix: () => Promise.reject(new Error('A stream has no fixes to apply.')),
    close: () => source.close(),
  };
}
