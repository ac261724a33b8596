// The JetStream target through the contract of targets without tables (contract/streamTarget.ts),
// against the NATS server on this machine: each run on a stream of its own.
import { afterAll } from 'vitest';
import { natsConfiguration } from '../../../../shared/agents/nats';
import { NatsTarget } from '../../../../main/agents/nats/target';
import { readStream } from '../../../helpers/debeziumConsumer';
import { deleteStreams, natsServers } from '../../../helpers/natsServer';
import { streamTargetContract } from '../contract/streamTarget';

const SERVERS = natsServers();
const streams: string[] = [];
let made = 0;

afterAll(async () => {
  await deleteStreams(SERVERS, streams);
});

streamTargetContract('NATS JetStream', async () => {
  const n = ++made;
  const stream = `NATSC_${process.pid}_${n}_${Date.now()}`;
  streams.push(stream);
  const prefix = `natsc${process.pid}x${n}`;
  const target = () =>
    new NatsTarget({
      credentials: { connectionName: 'contract', servers: SERVERS, tls: false },
      configuration: natsConfiguration.schema.parse({
        stream,
        subjectPrefix: prefix,
        transactionEvents: true,
      }),
      pipelineId: `natsc${n}`,
      origin: { connector: 'sqlserver', server: 'contract', database: 'Sales' },
    });
  return {
    table: {
      source: 'dbo.Items',
      name: 'Items',
      columns: [
        { name: 'id', sourceType: 'int', nullable: false },
        { name: 'name', sourceType: 'nvarchar(60)', nullable: true },
      ],
      key: ['id'],
    },
    open: async () => target(),
    openCrashingOnce: async () => {
      const crashing = target();
      // The checkpoint record is the last write of an apply: failing it is a crash after the publishes.
      const internals = crashing as unknown as { saveRecord: (...a: unknown[]) => Promise<void> };
      const save = internals.saveRecord.bind(crashing);
      let crashed = false;
      internals.saveRecord = async (...a) => {
        if (!crashed && (a[0] as Record<string, string>)['dbo.Items'] !== undefined) {
          crashed = true;
          throw new Error('connection closed before the checkpoint');
        }
        return save(...a);
      };
      return crashing;
    },
    published: async () =>
      (await readStream(SERVERS, stream, `${prefix}.>`)).flatMap((e) => {
        const op = e.value?.op;
        if (op !== 'c' && op !== 'u' && op !== 'd' && op !== 'r') return [];
        return [{ op, id: Number(e.key?.id) }];
      }),
  };
});
