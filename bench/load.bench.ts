// Load: 51 pipelines on one engine, 50 of them running (simulated SQL Server → SQLite, the
// source changing all the while), and the control API's latency measured meanwhile. The measuring
// client runs in the engine's process, so the figures include its own work.
import { measureLatency, type Benchmark } from './harness';
import { startLoad } from './loadSetup';

const PIPELINES = 51;
const RUNNING = 50;

export const loadBenchmark: Benchmark = {
  name: 'control API under load',
  run: async () => {
    const load = await startLoad(PIPELINES, RUNNING);
    try {
      await new Promise((r) => setTimeout(r, 3000));
      const figures = [
        ...(await measureLatency('load.getPipeline', () =>
          fetch(`${load.url}/pipelines/lp0`, { headers: load.headers }),
        )),
        ...(await measureLatency('load.putCredentials', () =>
          fetch(`${load.url}/pipelines/lp${PIPELINES - 1}/agents/src/config/credentials`, {
            method: 'PUT',
            headers: load.headers,
            body: JSON.stringify(load.credentials),
          }),
        )),
      ];
      const running = await load.call('GET', '/pipelines/lp0');
      const state = (running.agents as { state: string }[])[0]?.state;
      if (state !== 'running') throw new Error(`pipeline lp0 is ${state} after the measurement`);
      figures.push({ name: 'load.rss', value: Math.round(process.memoryUsage().rss / 2 ** 20), unit: 'MiB' });
      return figures;
    } finally {
      await load.close();
    }
  },
};
