// A pipeline said as a DBA thinks of it: one thing, reading from its source and writing to its target,
// whatever agents carry it. Used wherever pipelines are listed, so every list names them alike.
import { agentTypes, type AgentType } from './agents';

interface AgentLike {
  id: string;
  type: string;
  role: string;
}

/** The agent a pipeline is opened at: its source, or its first agent when it has no source. */
export function homeAgentOf<A extends AgentLike>(pipeline: { agents: readonly A[] }): A | undefined {
  return pipeline.agents.find((a) => a.role === 'source') ?? pipeline.agents[0];
}

const databaseOf = (type: string): string =>
  type in agentTypes ? agentTypes[type as AgentType].database : type;

/** "SQL Server → PostgreSQL"; a pipeline with no target agent writes to the default SQLite file. */
export function pipelineRoute(pipeline: { agents: readonly AgentLike[] }): string {
  const source = pipeline.agents.find((a) => a.role === 'source');
  const target = pipeline.agents.find((a) => a.role === 'target');
  return `${source ? databaseOf(source.type) : 'no source'} → ${target ? databaseOf(target.type) : 'SQLite file'}`;
}

/** What an agent is: "Change tracking, SQL Server"; one word when its title is its database. */
export function agentKind(agent: { type: string }): string {
  const known = agent.type in agentTypes ? agentTypes[agent.type as AgentType] : undefined;
  if (!known) return agent.type;
  return known.title === known.database ? known.title : `${known.title}, ${known.database}`;
}

/** An agent as listed under its pipeline: "source sales (Change tracking, SQL Server)". */
export const agentWords = (agent: AgentLike): string => `${agent.role} ${agent.id} (${agentKind(agent)})`;

/** A reason cut to `max` characters at a word's end, marked as cut; the whole is for its tooltip. */
export function shortened(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const end = cut.lastIndexOf(' ');
  return `${(end > max / 2 ? cut.slice(0, end) : cut).replace(/[\s,;:.]+$/, '')}…`;
}
