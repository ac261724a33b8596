// The capture engine in a process of its own, for the cluster drill: Change Tracking from the sandbox's
// SQL Server into an R3 stream on the drill's NATS cluster, each event printed as a line of JSON, until
// killed (or, with --until-caught-up, until the source has nothing more to give).
import { natsConfiguration } from '../../../../shared/agents/nats';
import { openChangeTrackingSource } from '../../../../main/agents/changeTracking/source';
import { NatsTarget } from '../../../../main/agents/nats/target';
import { PipelineRunner } from '../../../../main/runner/pipelineRunner';
import { ctConfiguration, sandboxCredentials } from '../../../helpers/changeTracking';

const [port = '', servers = '', stream = '', mode = ''] = process.argv.slice(2);
const runner = new PipelineRunner({
  openSource: () =>
    openChangeTrackingSource({
      credentials: sandboxCredentials({ port: Number(port) }, { connectionName: 'drill' }),
      configuration: ctConfiguration(),
      pipelineId: 'drill',
      agentId: 'src',
    }),
  openTarget: async () =>
    new NatsTarget({
      credentials: { connectionName: 'drill', servers, tls: false },
      configuration: natsConfiguration.schema.parse({ stream, subjectPrefix: 'drill', replicas: 3 }),
      pipelineId: 'drill',
      origin: { connector: 'sqlserver', server: 'sandbox', database: 'Sales' },
    }),
  entities: [{ source: { schema: 'dbo', table: 'Ledger' }, target: { table: 'Ledger' } }],
  onEvent: (e) => process.stdout.write(`${JSON.stringify(e)}\n`),
  idleMs: 20,
  maxRows: 2000,
  snapshotChunkRows: 2000,
  retry: { firstDelayMs: 50, maxDelayMs: 1000, maxAttempts: 1000 },
});
process.stdout.write('{"kind":"ready"}\n');
await (mode === '--until-caught-up' ? runner.runUntilCaughtUp() : runner.start());
process.exit(runner.state === 'failed' ? 1 : 0);
