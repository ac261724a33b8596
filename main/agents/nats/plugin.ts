// The NATS JetStream target type: a pipeline's changes as Debezium change events on a stream.
import { agentTypes } from '../../../shared/agents';
import type { NatsConfiguration, NatsHostCredentials } from '../../../shared/agents/nats';
import type { AgentPlugin, TargetNames } from '../spi';
import { natsAdmin } from './admin';
import { checkNatsPayload, checkNatsTarget } from './checks';
import { NatsSource } from './source';
import { tableSubject } from './subjects';
import { classifyNatsError, serverList } from './connection';
import { NatsTarget } from './target';
import { natsConfiguration } from '../../../shared/agents/nats';

/**
 * Subjects are made from the source's names (escaped, one-to-one), not from an entity's target name:
 * the names rules see one stream and prefix as one database, and compare target names exactly.
 */
const natsNames: TargetNames = {
  database: (settings) => {
    const servers = String(settings?.hostCredentials.servers ?? '')
      .split(',')
      .map((s) => s.trim().toLowerCase())
      .sort()
      .join(',');
    const c = settings?.configuration ?? {};
    return `${servers}/${String(c.stream ?? 'CDC')}/${String(c.subjectPrefix ?? 'cdc')}`;
  },
  schemas: false,
  defaultSchema: () => undefined,
  fold: (name) => name,
  reserved: () => null,
  // Each table's subject, from the source's names: two entities meet when their subjects do.
  writes: (entity, sourceDatabase, settings) => {
    const prefix = String(settings?.configuration.subjectPrefix ?? 'cdc');
    const parts = [
      ...(sourceDatabase === null ? [] : [sourceDatabase]),
      entity.source.schema,
      entity.source.table,
    ];
    return { name: tableSubject(prefix, parts), what: `subject (${tableSubject(prefix, parts)})` };
  },
};

export const natsPlugin: AgentPlugin<NatsHostCredentials, NatsConfiguration> = {
  definition: agentTypes['nats-jetstream'],
  endpoint: (c) => {
    const first = serverList(c)[0] ?? '';
    const url = new URL(/^\w+:\/\//.test(first) ? first : `nats://${first}`);
    return { host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port || 4222) };
  },
  classifyError: classifyNatsError,
  testConnection: async (hostCredentials) => {
    const [first] = await checkNatsTarget(hostCredentials, natsConfiguration.schema.parse({}));
    if (!first) throw new Error('a NATS target check answered nothing');
    return first;
  },
  source: {
    // Subjects compare names exactly, as the capture escaped them.
    names: { fold: (schema, table) => `${schema}\u0000${table}`, reserved: () => null },
    openReader: (agent) =>
      NatsSource.open({
        credentials: agent.hostCredentials,
        configuration: agent.configuration,
        pipelineId: agent.pipelineId,
      }),
    openAdmin: async (agent, entities) =>
      natsAdmin(
        await NatsSource.open({
          credentials: agent.hostCredentials,
          configuration: agent.configuration,
          pipelineId: agent.pipelineId,
        }),
        agent.configuration,
        entities,
      ),
    connected: (agent) => `Connected to NATS at ${agent.hostCredentials.servers}.`,
    origin: ({ hostCredentials: c, configuration }) => ({
      connector: configuration.sourceDatabase ? 'sqlserver' : 'ibmi',
      server: c.servers,
      database: configuration.sourceDatabase ?? null,
    }),
    fixes: { checkIds: [], described: 'none: the stream is the capture pipeline’s' },
    refusal: () => undefined,
  },
  target: {
    names: natsNames,
    check: (agent) => checkNatsTarget(agent.hostCredentials, agent.configuration),
    checkTables: (agent, shapes, measure) =>
      checkNatsPayload(agent.hostCredentials, agent.configuration, shapes, measure),
    open: (agent, { pipelineId, origin }) => {
      if (!agent) throw new Error('NATS JetStream is never the default target.');
      if (!origin) throw new Error('A NATS target names its subjects after the source: it needs the source.');
      const options = {
        credentials: agent.hostCredentials,
        configuration: agent.configuration,
        pipelineId,
        origin,
      };
      return { open: async () => new NatsTarget(options), batchRows: agent.configuration.batchRows };
    },
  },
};
