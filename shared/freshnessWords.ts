// Freshness in words, for Status, Home and the readiness report: where the last batch's time went, the
// p50 and p99 of the batches' end-to-end latency over the last minute, hour and day, and how fresh a
// quiet pipeline is by its heartbeat.
import { count, latency } from './format';
import type { Freshness, LatencySplit } from './liveFeed';

/** "fresh to 4.2 s (heartbeat)": the age of the newest heartbeat applied, with what else is said. */
export const freshTo = (seconds: number, also?: string): string =>
  `fresh to ${latency(seconds)} (heartbeat${also ? `; ${also}` : ''})`;

/** "1.2 s from commit at the source to commit at the target: 0.8 s at the source, …". */
export function latencySentence(split: LatencySplit): string {
  const total = split.sourceSeconds + split.engineSeconds + split.targetSeconds;
  return (
    `${latency(total)} from its commit at the source to its commit at the target: ` +
    `${latency(split.sourceSeconds)} at the source (commit to read), ` +
    `${latency(split.engineSeconds)} in the engine (read to apply), ` +
    `${latency(split.targetSeconds)} at the target (apply to commit)`
  );
}

const FRESHNESS_WINDOW_WORDS: Record<keyof Freshness, string> = {
  minute: 'Last minute',
  hour: 'Last hour',
  day: 'Last day',
};

/** Each window, shortest first, named and in words: "Last minute", "p50 1.1 s, p99 2.0 s (12 batches)". */
export function freshnessRows(f: Freshness): { window: keyof Freshness; label: string; text: string }[] {
  return (Object.keys(FRESHNESS_WINDOW_WORDS) as (keyof Freshness)[]).map((window) => ({
    window,
    label: FRESHNESS_WINDOW_WORDS[window],
    text: freshnessText(f[window]),
  }));
}

/** One window's figures in words: "p50 1.1 s, p99 2.0 s (12 batches)", or that none was applied. */
export function freshnessText(w: Freshness[keyof Freshness]): string {
  if (w.batches === 0 || w.p50Seconds === null || w.p99Seconds === null) return 'no batch applied';
  return `p50 ${latency(w.p50Seconds)}, p99 ${latency(w.p99Seconds)} (${count(w.batches)} ${w.batches === 1 ? 'batch' : 'batches'})`;
}
