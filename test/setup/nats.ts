// NATS with JetStream for the run: the machine's server on 127.0.0.1:4222 when it answers (started
// before the session, as on every machine of this kind), else one of the run's own from Debian's
// nats-server on a free port, stopped at the end. Tests reach it through natsServers().
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { listening, NATS_VARIABLE, startNatsCluster, type NatsCluster } from '../helpers/natsServer';

const ARTIFACTS = fileURLToPath(new URL('../artifacts', import.meta.url));
let own: NatsCluster | undefined;

export async function setup(): Promise<void> {
  if (await listening(4222)) return;
  mkdirSync(ARTIFACTS, { recursive: true });
  own = await startNatsCluster(1, ARTIFACTS);
  process.env[NATS_VARIABLE] = own.servers;
  process.stdout.write(`No NATS answers on 127.0.0.1:4222: the run uses its own, at ${own.servers}.\n`);
}

export function teardown(): void {
  own?.destroy();
}
