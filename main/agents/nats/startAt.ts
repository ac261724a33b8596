// Where the stream's tables without a position start when the configuration names a point (`startAt`):
// a stream sequence, that event the first applied, or the first event at or after a time (JetStream
// stamps each message in UTC). A point the stream's limits discarded is refused with the first it holds.
import { DeliverPolicy, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { STREAM_SEQUENCE, type NatsConfiguration } from '../../../shared/agents/nats';
import { isStartTime, localTimeOf, StartUnavailable, startAtWithoutCopy } from '../startPoint';

const CLOCK = 'UTC, as JetStream stamps messages';

export type StreamStartPoint =
  | { kind: 'sequence'; sequence: number; said: string }
  /** `iso`: the instant in RFC 3339, to the microsecond. */
  | { kind: 'time'; iso: string; said: string };

/** A point as startAt, stopAt and a rewind take one: a stream sequence, or a time (UTC without a zone). */
export function parseStreamPoint(text: string, field: 'startAt' | 'stopAt' | 'to'): StreamStartPoint {
  if (STREAM_SEQUENCE.test(text))
    return { kind: 'sequence', sequence: Number(text), said: `stream sequence ${text}` };
  if (!isStartTime(text))
    throw new StartUnavailable(`${field} "${text}" is neither a stream sequence nor a time.`);
  const { local, said } = localTimeOf(text, 0, CLOCK, field);
  return { kind: 'time', iso: `${local.replace(' ', 'T')}Z`, said };
}

/** The configuration's point, checked at Start: a copy replays the table's last copy, so none with it. */
export function streamStartPointOf(configuration: NatsConfiguration): StreamStartPoint | undefined {
  const startAt = startAtWithoutCopy(configuration, 'of the stream');
  return startAt === undefined ? undefined : parseStreamPoint(startAt, 'startAt');
}

const when = (iso: string) => iso.replace('T', ' ').replace(/\.?\d*Z$/, ' UTC');

/**
 * The position (the last sequence taken as applied) tables under `subjects` start from at `point`:
 * the stream's state in one request, and for a time one ephemeral consumer's first message.
 */
export async function streamStart(
  js: JetStreamClient,
  jsm: JetStreamManager,
  stream: string,
  subjects: string,
  point: StreamStartPoint,
): Promise<number> {
  const { state } = await jsm.streams.info(stream);
  const held =
    state.messages === 0
      ? `stream ${stream} holds no event (it is at sequence ${state.last_seq})`
      : `stream ${stream} holds events from sequence ${state.first_seq} (${when(state.first_ts)}) on`;
  if (point.kind === 'sequence') {
    if (point.sequence > state.last_seq + 1)
      throw new StartUnavailable(
        `${point.said} is ahead of stream ${stream}, which is at sequence ${state.last_seq}.`,
      );
    if (point.sequence < state.first_seq)
      throw new StartUnavailable(
        `${point.said} is no longer on the stream: ${held}; its limits discarded the older ones.`,
      );
    return point.sequence - 1;
  }
  const at = Date.parse(point.iso);
  // Messages were discarded (the first kept is not sequence 1): the time must be after them.
  const lostUntil = state.messages === 0 ? Date.parse(state.last_ts) : Date.parse(state.first_ts);
  if (state.first_seq > 1 && at < lostUntil)
    throw new StartUnavailable(
      `${held}; the ones before were discarded by its limits, so events at ${point.said} cannot be read.`,
    );
  if (state.messages === 0 || at > Date.parse(state.last_ts)) return state.last_seq;
  const consumer = await js.consumers.get(stream, {
    filter_subjects: subjects,
    deliver_policy: DeliverPolicy.StartTime,
    opt_start_time: point.iso,
    headers_only: true,
  });
  try {
    const first = await consumer.next({ expires: 2000 });
    return first ? first.seq - 1 : state.last_seq;
  } finally {
    await consumer.delete().catch(() => undefined);
  }
}

/** An RFC 3339 instant one microsecond later (JetStream compares nanoseconds; a time has microseconds). */
function microsecondAfter(iso: string): string {
  const m = /^(.*T\d{2}:\d{2}:\d{2})\.(\d{6})Z$/.exec(iso);
  if (!m) return iso;
  const micros = Number(m[2]) + 1;
  if (micros < 1_000_000) return `${m[1]}.${String(micros).padStart(6, '0')}Z`;
  const next = new Date(Date.parse(`${m[1]}Z`) + 1000).toISOString().slice(0, 19);
  return `${next}.000000Z`;
}

/**
 * Where a batch's reading is cut when the configuration names a stop point (`stopAt`): the stream
 * sequence itself, or the last event stamped at or before a time once it has passed; before then the
 * stream's end as it is now (every event on it was stamped earlier).
 */
export class StreamStop {
  private fixed: number | null = null;
  readonly said: string;

  private constructor(private readonly point: StreamStartPoint) {
    this.said = point.said;
    if (point.kind === 'sequence') this.fixed = point.sequence;
  }

  static of(configuration: NatsConfiguration): StreamStop | undefined {
    const { stopAt } = configuration;
    return stopAt === undefined ? undefined : new StreamStop(parseStreamPoint(stopAt, 'stopAt'));
  }

  /** The last sequence this batch may read, and whether it is the stop itself. */
  async cap(
    js: JetStreamClient,
    jsm: JetStreamManager,
    stream: string,
    subjects: string,
    state: { first_seq: number; last_seq: number },
  ): Promise<{ sequence: number; final: boolean }> {
    if (this.fixed !== null) return { sequence: this.fixed, final: true };
    if (this.point.kind !== 'time' || Date.now() <= Date.parse(this.point.iso))
      return { sequence: state.last_seq, final: false };
    // The first event after the time, less one: every event at or before it. A time before what
    // the stream still holds stops before all of it.
    const after = { ...this.point, iso: microsecondAfter(this.point.iso) };
    this.fixed = await streamStart(js, jsm, stream, subjects, after).catch((error: unknown) => {
      if (error instanceof StartUnavailable) return state.first_seq - 1;
      throw error;
    });
    return { sequence: this.fixed, final: true };
  }
}
