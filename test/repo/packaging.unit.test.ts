// electron-builder.yml, checked with electron-builder's own validator and against the security checklist.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const yaml = require('js-yaml') as { load(text: string): unknown };
const { validateConfiguration } = require('app-builder-lib/out/util/config/config') as {
  validateConfiguration(config: unknown, logger: unknown): Promise<void>;
};
const { DebugLogger } = require('builder-util') as { DebugLogger: new (enabled: boolean) => unknown };

const config = yaml.load(
  readFileSync(new URL('../../electron-builder.yml', import.meta.url), 'utf8'),
) as Record<string, unknown>;

describe('electron-builder.yml', () => {
  it("passes electron-builder's schema", async () => {
    await expect(validateConfiguration(config, new DebugLogger(false))).resolves.toBeUndefined();
  });

  it('builds AppImage and deb, NSIS and dmg, with an icon', () => {
    expect((config.linux as { target: string[] }).target).toEqual(['AppImage', 'deb']);
    expect((config.win as { target: string[] }).target).toEqual(['nsis']);
    expect((config.mac as { target: string[] }).target).toEqual(['dmg']);
    expect(
      readFileSync(new URL('../../build/icon.png', import.meta.url))
        .subarray(1, 4)
        .toString(),
    ).toBe('PNG');
    expect(config.fileAssociations).toEqual([]);
  });

  it('flips the fuses that close Electron back doors (checklist item 19)', () => {
    expect(config.electronFuses).toMatchObject({
      runAsNode: false,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
      grantFileProtocolExtraPrivileges: false,
    });
  });

  it('rebuilds native modules for Electron and ships them outside the asar; only they are runtime dependencies', () => {
    expect(config.npmRebuild).toBe(true);
    expect(config.asarUnpack).toEqual(['**/*.node']);
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    expect(Object.keys(pkg.dependencies)).toEqual(['better-sqlite3']);
  });
});
