// One apply engine of the shared-stream benchmark, in a worker thread of its own: as a second engine
// on another machine would, it has its own event loop, so two engines are not one thread taking turns.
import { parentPort, workerData } from 'node:worker_threads';
import { natsConfiguration } from '../shared/agents/nats';
import type { Entity } from '../shared/controlApi';
import { NatsSource } from '../main/agents/nats/source';
import { PostgresTarget } from '../main/agents/postgresql/target';
import { PipelineRunner } from '../main/runner/pipelineRunner';
import { PG } from './rawTargets';

export interface ApplyEngineData {
  stream: string;
  schema: string;
  engineId: string;
  servers: string;
  entities: Entity[];
}

const data = workerData as ApplyEngineData;
const runner = new PipelineRunner({
  openSource: () =>
    NatsSource.open({
      credentials: { connectionName: 'bench', servers: data.servers, tls: false },
      configuration: natsConfiguration.schema.parse({
        stream: data.stream,
        subjectPrefix: 'applybench',
        sourceDatabase: 'Bench',
      }),
      pipelineId: 'apply',
      engineId: data.engineId,
    }),
  openTarget: async () => new PostgresTarget({ ...PG, schema: data.schema }, 'apply'),
  entities: data.entities,
  idleMs: 20,
});
void runner.start();
parentPort?.on('message', (message) => {
  if (message !== 'stop') return;
  void runner.stop().then(() => parentPort?.postMessage(runner.failure ?? 'stopped'));
});
