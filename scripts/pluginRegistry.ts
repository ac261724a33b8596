// The plugin list of main/agents/registry.ts, between its markers, written from the agent folders:
// each folder's plugin.ts exports one `…Plugin` whose definition names its type. So a new agent type
// is its declaration in shared/agents/ and its folder; `npm run docs` writes it into the registry.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AGENT_FOLDERS } from './layers.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const IMPORTS = [
  '// plugins: written by npm run docs from main/agents/<type>/plugin.ts',
  '// plugins end',
] as const;
const ENTRIES = ['  // entries: written by npm run docs', '  // entries end'] as const;

/** Each agent folder's plugin: the exported name and the type its definition names. */
function plugins(): { folder: string; name: string; type: string }[] {
  return AGENT_FOLDERS.map((path) => {
    const file = join(ROOT, path, 'plugin.ts');
    const folder = path.slice('main/agents/'.length);
    if (!existsSync(file))
      throw new Error(`${path}/ has no plugin.ts: every agent folder exports its plugin there.`);
    const text = readFileSync(file, 'utf8');
    const name = /export const (\w+Plugin)\b/.exec(text)?.[1];
    const type = /definition: agentTypes(?:\.([\w]+)|\['([^']+)'\])/.exec(text);
    if (!name || !type)
      throw new Error(
        `${path}/plugin.ts must export a const named …Plugin whose definition is agentTypes[<its type>].`,
      );
    return { folder, name, type: type[1] ?? type[2] ?? '' };
  });
}

function between(text: string, [start, end]: readonly [string, string], lines: string[]): string {
  const from = text.indexOf(`${start}\n`);
  const to = text.indexOf(`${end}\n`);
  if (from < 0 || to < from) throw new Error(`main/agents/registry.ts lacks its markers: ${start} … ${end}`);
  return `${text.slice(0, from + start.length + 1)}${lines.map((l) => `${l}\n`).join('')}${text.slice(to)}`;
}

/** registry.ts with its imports and entries as the agent folders give them. */
export function registryWithPlugins(text: string): string {
  const found = plugins();
  const key = (type: string) => (/^[A-Za-z_$][\w$]*$/.test(type) ? type : `'${type}'`);
  const withImports = between(
    text,
    IMPORTS,
    found.map((p) => `import { ${p.name} } from './${p.folder}/plugin';`),
  );
  return between(
    withImports,
    ENTRIES,
    found.map((p) => `  ${key(p.type)}: ${p.name},`),
  );
}
