// The engine's own files, compared by real path and by device and inode: the data folder (but its
// replicas folder), and files it was given by path (a TLS certificate and key).
import { linkSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ownFileClash } from '../../../main/platform/ownFiles';

describe('ownFileClash', () => {
  const root = mkdtempSync(join(tmpdir(), 'cdc-own-'));
  const dataDir = join(root, 'data');
  mkdirSync(join(dataDir, 'replicas'), { recursive: true });
  writeFileSync(join(dataDir, 'engine.sqlite'), '');
  const cert = join(root, 'engine.crt');
  writeFileSync(cert, '');
  linkSync(cert, join(root, 'cert-hard.sqlite'));
  symlinkSync(cert, join(root, 'cert-soft.sqlite'));
  linkSync(join(dataDir, 'engine.sqlite'), join(root, 'store-hard.sqlite'));
  const deps = { dataDir, ownFiles: [cert] };

  it.each([
    ['the store', join(dataDir, 'engine.sqlite')],
    ['a new file in the data folder', join(dataDir, 'logs', 'x.sqlite')],
    ['the store by a dotted path', join(dataDir, 'replicas', '..', 'engine.sqlite')],
    ['a hard link to the store', join(root, 'store-hard.sqlite')],
    ['the certificate given by path', cert],
    ['a hard link to the certificate', join(root, 'cert-hard.sqlite')],
    ['a symbolic link to the certificate', join(root, 'cert-soft.sqlite')],
  ])('refuses %s', (_what, path) => {
    expect(ownFileClash(deps, path)).not.toBeNull();
  });

  it.each([
    ['a replica in the replicas folder', join(dataDir, 'replicas', 'p.sqlite')],
    ['a file elsewhere', join(root, 'replica.sqlite')],
  ])('allows %s', (_what, path) => {
    expect(ownFileClash(deps, path)).toBeNull();
  });
});
