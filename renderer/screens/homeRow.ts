// One row of Home: a pipeline of an engine, the agent it is shown by (its source), and where it ranks.
import type { FleetEngine } from '../../shared/push';
import type { OverviewAgent, OverviewPipeline } from '../../shared/liveFeed';

export interface HomeRow {
  engine: FleetEngine;
  pipeline: OverviewPipeline;
  agent: OverviewAgent;
  rank: number;
  why: string | null;
}
