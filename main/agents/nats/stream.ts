// The stream the target writes: created when absent, with the subjects, replicas, storage and limits of
// the configuration; an existing one is used when it takes the target's subjects and remembers message
// ids long enough, and refused, with what differs, when not.
import {
  DiscardPolicy,
  RetentionPolicy,
  StorageType,
  type JetStreamManager,
  type StreamInfo,
} from '@nats-io/jetstream';
import { MIN_DUPLICATE_WINDOW_SECONDS, type NatsConfiguration } from '../../../shared/agents/nats';

const NS_PER_SECOND = 1_000_000_000;

export class StreamMisfit extends Error {}

/** The subjects the stream must take: schema changes on the prefix itself, everything else under it. */
export const streamSubjects = (prefix: string) => [prefix, `${prefix}.>`];

/** Why an existing stream cannot take the target's events, or null. */
export function streamMisfit(info: StreamInfo, c: NatsConfiguration): string | null {
  const has = new Set(info.config.subjects ?? []);
  const missing = streamSubjects(c.subjectPrefix).filter((s) => !has.has(s) && !has.has('>'));
  if (missing.length > 0)
    return `The stream ${c.stream} takes ${[...has].join(', ') || 'no subjects'}, not ${missing.join(' and ')}: add them to it (nats stream edit ${c.stream} --subjects …), or choose another stream or prefix.`;
  const window = (info.config.duplicate_window ?? 0) / NS_PER_SECOND;
  if (window < MIN_DUPLICATE_WINDOW_SECONDS)
    return `The stream ${c.stream} remembers message ids for ${window} s, under the ${MIN_DUPLICATE_WINDOW_SECONDS} s a re-sent event needs to be dropped: raise its duplicate window (nats stream edit ${c.stream} --dupe-window ${MIN_DUPLICATE_WINDOW_SECONDS}s).`;
  return null;
}

export async function streamInfo(jsm: JetStreamManager, name: string): Promise<StreamInfo | null> {
  try {
    return await jsm.streams.info(name);
  } catch (e) {
    if (/stream not found/i.test((e as Error).message)) return null;
    throw e;
  }
}

export async function ensureStream(jsm: JetStreamManager, c: NatsConfiguration): Promise<StreamInfo> {
  const info = await streamInfo(jsm, c.stream);
  if (info) {
    const misfit = streamMisfit(info, c);
    if (misfit) throw new StreamMisfit(misfit);
    return info;
  }
  return jsm.streams.add({
    name: c.stream,
    subjects: streamSubjects(c.subjectPrefix),
    num_replicas: c.replicas,
    storage: c.storage === 'memory' ? StorageType.Memory : StorageType.File,
    retention: RetentionPolicy.Limits,
    discard: DiscardPolicy.Old,
    max_bytes: c.maxMegabytes > 0 ? c.maxMegabytes * 1024 * 1024 : -1,
    max_age: c.maxAgeHours * 3600 * NS_PER_SECOND,
    duplicate_window: c.duplicateWindowSeconds * NS_PER_SECOND,
  });
}
