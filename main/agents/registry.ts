// The one list of agent types on the database side: each type's plugin, from its own folder. The
// types themselves (names, forms, sections) are declared in shared/agents/index.ts; the plugin list
// below is written by `npm run docs` from the agent folders (scripts/pluginRegistry.ts), so a type
// declared there with its folder needs no other edit (test/main/agents/plugins.unit.test.ts).
import type { AgentType } from '../../shared/agents';
import type { AgentPlugin } from './spi';
// plugins: written by npm run docs from main/agents/<type>/plugin.ts
import { changeTrackingPlugin } from './changeTracking/plugin';
import { journalPlugin } from './journal/plugin';
import { natsPlugin } from './nats/plugin';
import { postgresqlPlugin } from './postgresql/plugin';
import { sqlitePlugin } from './sqlite/plugin';
// plugins end

export type AgentPlugins = Readonly<Record<string, AgentPlugin>>;

export const AGENT_PLUGINS: Readonly<Record<AgentType, AgentPlugin>> = {
  // entries: written by npm run docs
  'change-tracking': changeTrackingPlugin,
  journal: journalPlugin,
  'nats-jetstream': natsPlugin,
  postgresql: postgresqlPlugin,
  sqlite: sqlitePlugin,
  // entries end
};

/** Where a pipeline without a target agent writes. */
export const DEFAULT_TARGET_TYPE: AgentType = 'sqlite';

/** The plugin of a type; a type without one is a defect of this build, not of the request. */
export function pluginOf(plugins: AgentPlugins, type: string): AgentPlugin {
  const plugin = plugins[type];
  if (!plugin) throw new Error(`No plugin for agent type "${type}".`);
  return plugin;
}
