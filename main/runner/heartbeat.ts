// The source's optional heartbeat (SourceHeartbeat), written from the step once it is due, before the
// batch is read: a quiet source's next batch then carries it to the target, where its commit measures
// the whole path. A source that refuses it (authority missing) is told once; the pipeline runs on.
import { HeartbeatRefused, type SourceAgent } from '../agents/source';
import type { RunContext } from './runContext';

export async function beatWhenDue(run: RunContext, source: SourceAgent): Promise<void> {
  const heartbeat = source.heartbeat;
  if (!heartbeat || run.heartbeatRefused) return;
  const now = run.now();
  if (now - run.lastBeatAt < heartbeat.everyMs) return;
  try {
    await heartbeat.beat();
    run.lastBeatAt = now;
  } catch (error) {
    if (!(error instanceof HeartbeatRefused)) throw error;
    run.heartbeatRefused = true;
    run.emit({ kind: 'heartbeat-refused', reason: error.message });
  }
}
