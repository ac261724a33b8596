// The one list of agent types on the database side: each type's plugin, from its own folder. The
// types themselves (names, forms, sections) are declared in shared/agents/index.ts; a type added there
// and here, with its folder, needs no other edit (test/main/agents/plugins.unit.test.ts).
import type { AgentType } from '../../shared/agents';
import { changeTrackingPlugin } from './changeTracking/plugin';
import { journalPlugin } from './journal/plugin';
import { natsPlugin } from './nats/plugin';
import { postgresqlPlugin } from './postgresql/plugin';
import type { AgentPlugin } from './spi';
import { sqlitePlugin } from './sqlite/plugin';
// A new type's plugin: import it above this line.

export type AgentPlugins = Readonly<Record<string, AgentPlugin>>;

export const AGENT_PLUGINS: Readonly<Record<AgentType, AgentPlugin>> = {
  'change-tracking': changeTrackingPlugin,
  journal: journalPlugin,
  sqlite: sqlitePlugin,
  postgresql: postgresqlPlugin,
  'nats-jetstream': natsPlugin,
  // A new type's plugin: above this line.
};

/** Where a pipeline without a target agent writes. */
export const DEFAULT_TARGET_TYPE: AgentType = 'sqlite';

/** The plugin of a type; a type without one is a defect of this build, not of the request. */
export function pluginOf(plugins: AgentPlugins, type: string): AgentPlugin {
  const plugin = plugins[type];
  if (!plugin) throw new Error(`No plugin for agent type "${type}".`);
  return plugin;
}
