// A table's shape told on `<prefix>` as Debezium's schema change event (SQL Server connector's form):
// when a copy starts (CREATE) and when the source's columns change (ALTER). `typeExpression` is the
// source's own type, which the apply side creates its columns from.
import { createHash } from 'node:crypto';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { jsonText } from './debeziumTypes';
import type { TableEnvelope } from './envelope';
import { OP_HEADER, PIPELINE_HEADER, type OutgoingMessage } from './messages';
import { schemaChangeSubject } from './subjects';

/** The event for the table's shape, and the digest of that shape (told once per shape). */
export function schemaChangeEvent(
  env: TableEnvelope,
  type: 'CREATE' | 'ALTER',
  pipelineId: string,
  epoch: number,
  position: string,
): { message: OutgoingMessage; shape: string } {
  const t = env.table;
  const { origin, prefix } = env.options;
  const table = {
    primaryKeyColumnNames: t.key,
    columns: t.columns.map((c, i) => ({
      name: c.name,
      typeName: c.sourceType.replace(/\(.*$/, '').toUpperCase(),
      typeExpression: c.sourceType,
      position: i + 1,
      optional: c.nullable,
    })),
  };
  const body = {
    source: {
      connector: origin.connector,
      name: prefix,
      db: origin.database ?? origin.server,
      schema: env.ref.schema,
      table: env.ref.table,
      position,
    },
    ts_ms: Date.now(),
    databaseName: origin.database ?? origin.server,
    schemaName: env.ref.schema,
    ddl: null,
    tableChanges: [{ type, id: env.parts.map((p) => `"${p.replaceAll('"', '""')}"`).join('.'), table }],
  };
  const h = natsHeaders();
  h.set(PIPELINE_HEADER, pipelineId);
  h.set(OP_HEADER, 'schema');
  const shape = createHash('sha256')
    .update(`${t.source}\u0000${JSON.stringify(table)}`)
    .digest('base64url');
  return {
    message: {
      subject: schemaChangeSubject(prefix),
      body: new TextEncoder().encode(jsonText(body)),
      id: `${pipelineId}:${epoch}:schema:${type}:${shape}`,
      headers: h,
      table: t.source,
    },
    shape,
  };
}
