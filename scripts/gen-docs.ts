// `npm run docs`: rewrites the generated documents from the shared/ declarations.
import { writeFileSync } from 'node:fs';
import { openApiDocument } from '../main/engine/openapi';
import { configurationReference } from '../shared/configurationReference';

writeFileSync(new URL('../docs/configuration.md', import.meta.url), configurationReference());
writeFileSync(
  new URL('../docs/openapi.json', import.meta.url),
  JSON.stringify(openApiDocument(), null, 2) + '\n',
);
process.stdout.write('wrote docs/configuration.md and docs/openapi.json\n');
