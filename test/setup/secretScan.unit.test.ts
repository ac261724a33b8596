// The run-wide secret scan is only worth its "0 found" if it finds a secret wherever one is planted.
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { strToU8, zipSync } from 'fflate';
import { readable, secretsIn, type SecretNote } from './secretNotes';
import { scan } from './secretScan';

const PASSWORD = 'Planted-Passw0rd';
const TOKEN = 'tok_0123456789abcdef';
const carried: SecretNote = {
  kind: 'answer',
  where: 'http://127.0.0.1:1/pipelines/p/agents/a',
  secrets: [PASSWORD, TOKEN],
  text: '{"hostCredentials":{"password":"set"}}',
};

describe('the secret scan', () => {
  it('finds nothing where nothing leaked, and counts what it searched', () => {
    const { leaks, summary } = scan([
      carried,
      { kind: 'log', where: 'log', secrets: [], text: '{"event":"x"}' },
    ]);
    expect(leaks).toEqual([]);
    expect(summary).toBe(
      '1 answers, 1 log lines, 0 printed lines and 0 files (0 KiB) searched for 2 secrets, 0 found',
    );
  });

  it.each([
    [
      'an answer',
      { kind: 'answer', where: 'http://127.0.0.1:1/x', secrets: [], text: `{"error":"${PASSWORD}"}` },
    ],
    [
      'a log line',
      { kind: 'log', where: 'log', secrets: [], text: `{"event":"connect","detail":"${TOKEN}"}` },
    ],
    ['a printed line', { kind: 'output', where: 'stderr', secrets: [], text: `failed for ${PASSWORD}\n` }],
  ] satisfies [string, SecretNote][])(
    'finds a secret a request carried in %s, without repeating it',
    (_where, note) => {
      const { leaks } = scan([carried, note]);
      expect(leaks).toHaveLength(1);
      expect(leaks.join()).not.toContain(PASSWORD);
      expect(leaks.join()).not.toContain(TOKEN);
    },
  );

  it('finds a secret holding a quote, a backslash or non-ASCII JSON-escaped or URL-encoded, in answers and files', () => {
    const awkward = 'Qu0te"Back\\slash-Pässwörd';
    const request: SecretNote = { ...carried, secrets: [awkward] };
    for (const text of [
      JSON.stringify({ error: awkward }),
      JSON.stringify({ error: awkward }).replace(
        /[\u007f-\uffff]/g,
        (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
      ),
      `GET /x?p=${encodeURIComponent(awkward)}`,
    ]) {
      const { leaks } = scan([request, { kind: 'log', where: 'log', secrets: [], text }]);
      expect(leaks, text).toHaveLength(1);
    }
    const dir = mkdtempSync(join(tmpdir(), 'cdc-scan-forms-'));
    writeFileSync(join(dir, 'bundle.json'), JSON.stringify({ connectionName: awkward }));
    expect(scan([{ kind: 'folder', where: dir }], [awkward]).leaks).toHaveLength(1);
  });

  it('finds a known password in a file of a watched folder, as UTF-8 or UTF-16 (SQLite text), at any depth', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cdc-scan-'));
    mkdirSync(join(dir, 'logs'));
    writeFileSync(join(dir, 'logs', 'app.log'), `{"event":"oops","password":"${PASSWORD}"}\n`);
    writeFileSync(
      join(dir, 'store.sqlite'),
      Buffer.concat([Buffer.alloc(64), Buffer.from(PASSWORD, 'utf16le')]),
    );
    writeFileSync(join(dir, 'clean.json'), '{"password":"set"}');
    const { leaks, summary } = scan([{ kind: 'folder', where: dir }], [PASSWORD]);
    expect(leaks.map((l) => l.replace(dir, '<dir>'))).toEqual([
      'file <dir>/logs/app.log holds a secret (Pl…)',
      'file <dir>/store.sqlite holds a secret (Pl…)',
    ]);
    expect(summary).toMatch(/3 files .* 1 secrets, 2 found$/);
  });

  it('reads a diagnostics bundle inside an answer: a zip body, or a zip as base64 in a JSON answer', () => {
    const bundle = zipSync({ 'logs/app.log': strToU8(`{"detail":"${PASSWORD}"}`) });
    for (const body of [
      bundle,
      JSON.stringify({
        ok: true,
        value: { fileName: 'd.zip', base64: Buffer.from(bundle).toString('base64') },
      }),
    ]) {
      const text = readable(body);
      expect(text).toContain('logs/app.log');
      expect(
        scan([carried, { kind: 'answer', where: 'createDiagnostics', secrets: [], text }]).leaks,
      ).toHaveLength(1);
    }
  });

  it('takes every password and token of a request as a secret, but a built-in name a fuzzer sent', () => {
    const body = {
      hostCredentials: { password: 'toString', passwordFile: PASSWORD, nested: [{ token: TOKEN }] },
      token: 'constructor',
      apiToken: 'prototype',
      name: 'not-a-secret-at-all',
    };
    expect(secretsIn(body)).toEqual([PASSWORD, TOKEN]);
  });

  it('leaves out values too short to be secrets', () => {
    const { leaks } = scan([{ ...carried, secrets: ['pw'], text: 'pw' }]);
    expect(leaks).toEqual([]);
  });

  it("lets the sandbox panel's answer show the sample passwords, and only those, and only there", () => {
    const sample = 'Sandbox-Passw0rd';
    const details = (where: string, text: string) => ({ kind: 'answer' as const, where, secrets: [], text });
    expect(scan([details('getSandboxDetails', sample)], [], [sample]).leaks).toEqual([]);
    expect(scan([details('http://127.0.0.1:9/api/getSandboxDetails', sample)], [], [sample]).leaks).toEqual(
      [],
    );
    // Anywhere else the same value is a leak; a real secret in the panel's answer is one too.
    expect(scan([details('listEngineAgents', sample)], [], [sample]).leaks).toHaveLength(1);
    expect(scan([details('http://x/api/getSandboxDetailsX', sample)], [], [sample]).leaks).toHaveLength(1);
    expect(scan([carried, details('getSandboxDetails', PASSWORD)], [], [sample]).leaks).toHaveLength(1);
  });
});
