// `npm run docs`: rewrites the generated documents from the shared/ declarations.
import { readFileSync, writeFileSync } from 'node:fs';
import { openApiDocument } from '../main/engine/openapi';
import { configurationReference } from '../shared/configurationReference';
import { readmeWithLayers } from './readmeLayers';

writeFileSync(new URL('../docs/configuration.md', import.meta.url), configurationReference());
writeFileSync(
  new URL('../docs/openapi.json', import.meta.url),
  JSON.stringify(openApiDocument(), null, 2) + '\n',
);
const readme = new URL('../README.md', import.meta.url);
writeFileSync(readme, readmeWithLayers(readFileSync(readme, 'utf8')));
process.stdout.write("wrote docs/configuration.md, docs/openapi.json and the README's layer table\n");
