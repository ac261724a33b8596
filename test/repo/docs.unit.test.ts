import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configurationReference } from '../../shared/configurationReference';
import { readmeWithLayers } from '../../scripts/readmeLayers';
import { registryWithPlugins } from '../../scripts/pluginRegistry';

describe('generated docs', () => {
  it('docs/configuration.md matches the schemas (run `npm run docs` after changing a field)', () => {
    expect(readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8')).toBe(
      configurationReference(),
    );
  });

  it("main/agents/registry.ts lists every agent folder's plugin (run `npm run docs` after adding one)", () => {
    const registry = readFileSync(new URL('../../main/agents/registry.ts', import.meta.url), 'utf8');
    expect(registry).toBe(registryWithPlugins(registry));
  });

  it("the README's layer table is scripts/layers.mjs's (run `npm run docs` after changing it)", () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    expect(readme).toBe(readmeWithLayers(readme));
    expect(readme).toContain('| `main/engine/store/` | `main/platform` |');
  });

  it('documents every field of both agents with its default', () => {
    const doc = configurationReference();
    expect(doc).toContain('| `port` | Port | no | `1433` | a whole number from 1 to 65535 |');
    expect(doc).toContain('| `syncLibrary` | Sync library (advanced) | no | `"SYNC"` |');
    expect(doc).toContain('`port` is refused: the journal agent has no port setting');
  });

  it("keeps the user's spec in the repo, word for word (decisions added at the end)", () => {
    for (const name of ['source-agents.md', 'decisions.md']) {
      const copy = readFileSync(new URL(`../../docs/spec/${name}`, import.meta.url), 'utf8');
      expect(copy.length).toBeGreaterThan(1000);
      let original: string | undefined;
      try {
        original = readFileSync(new URL(`../../../shared/spec/${name}`, import.meta.url), 'utf8');
      } catch {
        // Beside the repo only on the team's machines and CI; the copy is what ships.
      }
      // decisions.md may grow: the team records at its end what it decided since (docs/names.md).
      if (original !== undefined)
        expect(name === 'decisions.md' ? copy.slice(0, original.length) : copy).toBe(original);
    }
  });
});
