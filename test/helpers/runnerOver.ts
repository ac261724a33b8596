// A runner over a source harness's tables into a target side, as the runner suites start one: its
// events recorded, a short idle wait; `options` add or replace what a test needs.
import type { TableRef } from '../../main/agents/source';
import type { RunnerEvent } from '../../main/runner/events';
import { PipelineRunner, type RunnerOptions } from '../../main/runner/pipelineRunner';
import type { SourceHarness } from '../main/agents/contract/sourceAgent';
import type { TargetSide } from './targetSide';

export function runnerOver(
  h: SourceHarness,
  side: TargetSide,
  tables: readonly TableRef[],
  events: RunnerEvent[],
  options: Partial<RunnerOptions> = {},
): PipelineRunner {
  return new PipelineRunner({
    openSource: () => h.open(),
    openTarget: () => side.open(),
    entities: tables.map((t) => h.entity(t)),
    onEvent: (e) => events.push(e),
    idleMs: 20,
    ...options,
  });
}
