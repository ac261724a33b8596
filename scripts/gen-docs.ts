// `npm run docs`: rewrites the generated documents from the shared/ declarations.
import { writeFileSync } from 'node:fs';
import { configurationReference } from '../shared/config/reference';

writeFileSync(new URL('../docs/configuration.md', import.meta.url), configurationReference());
process.stdout.write('wrote docs/configuration.md\n');
