// `npm run soak [-- minutes]` (10 by default): the load benchmark's setting held for minutes, memory
// sampled every 30 s after a warm-up minute, and the growth from the first sample to the last told.
// Opt-in: it never runs inside `npm test` or `npm run bench`.
import { startLoad } from './loadSetup';

const minutes = Number(process.argv[2] ?? 10);
const load = await startLoad(50, 10);
const mib = () => Math.round(process.memoryUsage().rss / 2 ** 20);
const samples: number[] = [];
const started = Date.now();
await new Promise((r) => setTimeout(r, 60_000));
while (Date.now() - started < minutes * 60_000) {
  // A request now and then, as the app's screens make them.
  await load.call('GET', '/pipelines/lp0');
  samples.push(mib());
  process.stdout.write(`${Math.round((Date.now() - started) / 1000)} s: rss ${samples.at(-1)} MiB\n`);
  await new Promise((r) => setTimeout(r, 30_000));
}
const state = ((await load.call('GET', '/pipelines/lp0')).agents as { state: string }[])[0]?.state;
await load.close();
const first = samples[0] ?? 0;
const last = samples.at(-1) ?? 0;
process.stdout.write(
  `soak: ${minutes} min, ${samples.length} samples, rss ${first} → ${last} MiB (max ${Math.max(...samples)}), pipeline lp0 ${state}\n`,
);
