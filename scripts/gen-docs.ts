// `npm run docs`: rewrites the generated documents from the shared/ declarations, and the plugin list
// of main/agents/registry.ts from the agent folders (first: the OpenAPI document is built over it).
import { readFileSync, writeFileSync } from 'node:fs';
import { configurationReference } from '../shared/configurationReference';
import { registryWithPlugins } from './pluginRegistry';
import { readmeWithLayers } from './readmeLayers';

async function main(): Promise<void> {
  const registry = new URL('../main/agents/registry.ts', import.meta.url);
  writeFileSync(registry, registryWithPlugins(readFileSync(registry, 'utf8')));
  const { openApiDocument } = await import('../main/engine/openapi');
  writeFileSync(new URL('../docs/configuration.md', import.meta.url), configurationReference());
  writeFileSync(
    new URL('../docs/openapi.json', import.meta.url),
    JSON.stringify(openApiDocument(), null, 2) + '\n',
  );
  const readme = new URL('../README.md', import.meta.url);
  writeFileSync(readme, readmeWithLayers(readFileSync(readme, 'utf8')));
  process.stdout.write(
    "wrote main/agents/registry.ts's plugin list, docs/configuration.md, docs/openapi.json and the README's layer table\n",
  );
}

void main();
