// A made-up agent type, "webhook" (a target posting each change to a URL), as a newcomer would add
// one: its declaration beside the others in shared/agents/ with its one entry in shared/agents/index.ts,
// and its folder in main/agents/ (npm run docs then lists its plugin in main/agents/registry.ts).
// madeUpAgent.e2e.test.ts writes these into a copy of the project.

export const ADDED_FILES: Record<string, string> = {
  'shared/agents/webhook.ts': `// A target that posts each change to a URL: its two steps' fields.
import { z } from 'zod';
import { integer, text } from '../config/fields';
import { section } from '../config/section';

export const webhookHostCredentials = section({
  id: 'hostCredentials',
  title: 'Web hook endpoint',
  description: 'Where each change is posted.',
  schema: z.strictObject({
    endpointUrl: text({ label: 'Endpoint URL', help: 'The URL each change is posted to.', max: 2000 }),
  }),
});

export const webhookConfiguration = section({
  id: 'configuration',
  title: 'Delivery',
  description: 'How changes are posted.',
  schema: z.strictObject({
    retries: integer({
      label: 'Retries',
      help: 'How often a post the endpoint refused is sent again.',
      min: 0,
      max: 10,
      default: 3,
    }),
  }),
});
`,
  'main/agents/webhook/plugin.ts': `// The web hook target's plugin: enough for the wizard and the checks; it writes nowhere yet.
import { agentTypes } from '../../../shared/agents';
import type { AgentPlugin } from '../spi';

export const webhookPlugin: AgentPlugin = {
  definition: agentTypes.webhook,
  endpoint: () => undefined,
  testConnection: async (hostCredentials) => ({
    id: 'connection',
    status: 'passed',
    message: \`\${String(hostCredentials.endpointUrl)} would be posted to.\`,
    remedy: null,
  }),
  target: {
    names: {
      database: (settings) => String(settings?.hostCredentials.endpointUrl ?? ''),
      schemas: false,
      defaultSchema: () => undefined,
      fold: (name) => name,
      reserved: () => null,
    },
    check: async () => [],
    open: () => ({
      open: () => Promise.reject(new Error('The web hook target writes nowhere yet.')),
      batchRows: 100,
    }),
  },
};
`,
};

/**
 * The registry's edits, as docs/architecture.md's recipe gives them: [file, the marker line, the
 * lines put just above it]. Anchored on the markers, so no other type's line is ever matched.
 */
export const REGISTRY_EDITS: [string, string, string][] = [
  [
    'shared/agents/index.ts',
    "// A new type's sections: import them above this line.",
    "import { webhookConfiguration, webhookHostCredentials } from './webhook';",
  ],
  ['shared/agents/index.ts', "  // A new type's name: above this line.", "  'webhook',"],
  [
    'shared/agents/index.ts',
    "  // A new type's declaration: above this line.",
    `  webhook: {
    type: 'webhook',
    title: 'Web hook',
    database: 'HTTP',
    description: 'Posts each change to a URL.',
    roles: ['target'],
    sections: { hostCredentials: webhookHostCredentials, configuration: webhookConfiguration },
    ui: { stepNotes: { configuration: 'A post is retried at most this often, then the pipeline stops.' } },
  },`,
  ],
];
