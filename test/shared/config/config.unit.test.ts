// The config model of both agent types against source-agents.md and decisions.md. Expected values are
// written out here from those documents, not read back from the schemas, so a wrong schema fails.
import { describe, expect, it } from 'vitest';
import { agentTypes } from '../../../shared/agents';
import { effectiveJournalFormats } from '../../../shared/agents/journal';
import { parseSection, redactSection } from '../../../shared/config/parse';
import type { Problem } from '../../../shared/config/problems';

const ct = agentTypes['change-tracking'].sections;
const jr = agentTypes.journal.sections;

const ctCredentials = {
  connectionName: 'orders',
  host: 'sql01.example.com',
  databaseName: 'Sales',
  username: 'cdc',
  password: 's3cret!',
};
const jrCredentials = {
  connectionName: 'as400',
  host: 'ibmi.example.com',
  databaseName: 'S1234567',
  username: 'CDCUSER',
  password: 'pw-ibm-i',
};

function problems(result: ReturnType<typeof parseSection>): Problem[] {
  if (result.ok) throw new Error(`expected problems, got ${JSON.stringify(result.value)}`);
  return result.problems;
}
function value(result: ReturnType<typeof parseSection>): Record<string, unknown> {
  if (!result.ok) throw new Error(`expected success, got ${JSON.stringify(result.problems)}`);
  return result.value;
}

describe('defaults (decisions.md)', () => {
  it('fills every change-tracking default', () => {
    expect(value(parseSection(ct.hostCredentials, ctCredentials))).toEqual({
      ...ctCredentials,
      port: 1433,
      maxConnectionsCount: 10,
      enableTls: false,
    });
    expect(value(parseSection(ct.configuration, {}))).toEqual({
      enableRecursionProtection: false,
      sourceChangeRetentionDays: 5,
      retentionWarningPercent: 25,
      heartbeatSeconds: 0,
      snapshotMode: 'initial',
      snapshotChunkRows: 10_000,
      droppedColumns: 'keep',
      onTableError: 'suspend-table',
      maxExceptions: 1000,
      schemaChanges: 'propagate',
      droppedTables: 'keep',
    });
  });

  it('fills every journal default, custom options included', () => {
    expect(value(parseSection(jr.hostCredentials, jrCredentials))).toEqual({
      ...jrCredentials,
      maxConnectionsCount: 10,
      dateFormat: 'iso',
      timeFormat: 'iso',
      blockSize: 32,
      useConnectionPool: true,
      syncLibrary: 'SYNC',
      journalCheckpointTable: 'JOURNALSCP',
      enableDdsDiscovery: false,
      useDatabaseTimezone: false,
    });
    expect(value(parseSection(jr.configuration, {}))).toEqual({
      dateFormat: null,
      timeFormat: null,
      invalidDecimals: 'keep-row-aside',
      invalidDates: 'keep-row-aside',
      invalidText: 'keep-row-aside',
      textOrder: 'logical',
      heartbeatSeconds: 0,
      snapshotMode: 'initial',
      snapshotChunkRows: 10_000,
      droppedColumns: 'keep',
      onTableError: 'suspend-table',
      maxExceptions: 1000,
      schemaChanges: 'propagate',
      droppedTables: 'keep',
    });
  });

  it("accepts the spec's example bodies", () => {
    const ctBody = {
      ...ctCredentials,
      port: 1433,
      maxConnectionsCount: 5,
      enableTls: true,
      certificatePath: '/etc/ssl/ca.pem',
    };
    expect(value(parseSection(ct.hostCredentials, ctBody))).toEqual(ctBody);
    expect(value(parseSection(ct.configuration, { enableRecursionProtection: true }))).toMatchObject({
      enableRecursionProtection: true,
    });
    expect(
      value(parseSection(jr.hostCredentials, { ...jrCredentials, maxConnectionsCount: 4 })),
    ).toMatchObject({ maxConnectionsCount: 4 });
    expect(value(parseSection(jr.configuration, { dateFormat: 'mdy', timeFormat: 'hms' }))).toMatchObject({
      dateFormat: 'mdy',
      timeFormat: 'hms',
    });
  });
});

describe('enums', () => {
  const dates = ['julian', 'mdy', 'dmy', 'ymd', 'usa', 'iso', 'eur', 'jis'];
  const times = ['hms', 'usa', 'iso', 'eur', 'jis'];
  const blocks = [0, 8, 16, 32, 64, 128, 256, 512];

  it.each(dates)('accepts date format %s in both objects', (dateFormat) => {
    expect(value(parseSection(jr.hostCredentials, { ...jrCredentials, dateFormat })).dateFormat).toBe(
      dateFormat,
    );
    expect(value(parseSection(jr.configuration, { dateFormat })).dateFormat).toBe(dateFormat);
  });
  it.each(times)('accepts time format %s in both objects', (timeFormat) => {
    expect(value(parseSection(jr.hostCredentials, { ...jrCredentials, timeFormat })).timeFormat).toBe(
      timeFormat,
    );
    expect(value(parseSection(jr.configuration, { timeFormat })).timeFormat).toBe(timeFormat);
  });
  it.each(blocks)('accepts block size %i', (blockSize) => {
    expect(value(parseSection(jr.hostCredentials, { ...jrCredentials, blockSize })).blockSize).toBe(
      blockSize,
    );
  });

  it.each([
    [jr.hostCredentials, { ...jrCredentials, dateFormat: 'ISO' }, '/hostCredentials/dateFormat'],
    [jr.hostCredentials, { ...jrCredentials, dateFormat: 'hms' }, '/hostCredentials/dateFormat'],
    [jr.hostCredentials, { ...jrCredentials, timeFormat: 'mdy' }, '/hostCredentials/timeFormat'],
    [jr.hostCredentials, { ...jrCredentials, blockSize: 4 }, '/hostCredentials/blockSize'],
    [jr.hostCredentials, { ...jrCredentials, blockSize: '32' }, '/hostCredentials/blockSize'],
    [jr.hostCredentials, { ...jrCredentials, dateFormat: null }, '/hostCredentials/dateFormat'],
    [jr.configuration, { dateFormat: 'julian2' }, '/configuration/dateFormat'],
    [jr.configuration, { timeFormat: '' }, '/configuration/timeFormat'],
  ] as const)('refuses a value outside the enum (%#)', (section, body, pointer) => {
    const [problem] = problems(parseSection(section, body));
    expect(problem?.pointer).toBe(pointer);
    expect(problem?.message).toMatch(/must be one of/);
  });

  it('names every allowed block size in the message', () => {
    const [problem] = problems(parseSection(jr.hostCredentials, { ...jrCredentials, blockSize: 1024 }));
    expect(problem?.message).toBe(
      'Block size (kilobytes) must be one of 0, 8, 16, 32, 64, 128, 256, 512; got 1024.',
    );
  });
});

describe('ranges: 0, the edges, max+1', () => {
  const cases: [string, typeof ct.hostCredentials, Record<string, unknown>, string, number, number][] = [
    ['port', ct.hostCredentials, ctCredentials, 'port', 1, 65535],
    ['ct maxConnectionsCount', ct.hostCredentials, ctCredentials, 'maxConnectionsCount', 1, 100],
    ['journal maxConnectionsCount', jr.hostCredentials, jrCredentials, 'maxConnectionsCount', 1, 100],
    ['sourceChangeRetentionDays', ct.configuration, {}, 'sourceChangeRetentionDays', 1, 365],
  ];
  it.each(cases)('%s', (_name, section, base, key, min, max) => {
    for (const ok of [min, max]) expect(value(parseSection(section, { ...base, [key]: ok }))[key]).toBe(ok);
    for (const bad of [0, -1, max + 1, min + 0.5]) {
      const [problem] = problems(parseSection(section, { ...base, [key]: bad }));
      expect(problem?.pointer).toBe(`/${section.id}/${key}`);
      expect(problem?.rule).toBe(`a whole number from ${min} to ${max}`);
      expect(problem?.received).toBe(String(bad));
    }
  });

  it('says exactly what is wrong with a port of 70000', () => {
    const result = parseSection(ct.hostCredentials, { ...ctCredentials, port: 70000 });
    expect(problems(result)).toEqual([
      {
        pointer: '/hostCredentials/port',
        received: '70000',
        rule: 'a whole number from 1 to 65535',
        message: 'Port must be a whole number from 1 to 65535; got 70000.',
      },
    ]);
  });

  it('bounds the temporary table prefix: 1–20 of A-Za-z0-9_, starting with a letter', () => {
    for (const ok of ['a', 'Sync_2', 'A'.repeat(20)]) {
      expect(value(parseSection(ct.configuration, { temporaryTablePrefix: ok })).temporaryTablePrefix).toBe(
        ok,
      );
    }
    for (const bad of ['', '1abc', '_x', 'A'.repeat(21), 'a-b', 'a b', "x';DROP", 'tmp#']) {
      const [problem] = problems(parseSection(ct.configuration, { temporaryTablePrefix: bad }));
      expect(problem?.pointer).toBe('/configuration/temporaryTablePrefix');
    }
  });

  it('bounds string lengths', () => {
    expect(
      value(parseSection(ct.hostCredentials, { ...ctCredentials, connectionName: 'x'.repeat(128) }))
        .connectionName,
    ).toHaveLength(128);
    const [tooLong] = problems(
      parseSection(ct.hostCredentials, { ...ctCredentials, connectionName: 'x'.repeat(129) }),
    );
    expect(tooLong?.message).toMatch(
      /^Connection name must be a string of 1 to 128 characters; got "x{59}… \(131 characters\)\.$/,
    );
    const [spaced] = problems(parseSection(ct.hostCredentials, { ...ctCredentials, host: 'sql 01' }));
    expect(spaced?.rule).toBe('a string of 1 to 253 characters with no spaces');
  });
});

describe('IBM i names', () => {
  it.each([
    ['sync', 'SYNC'],
    ['Cdc_01', 'CDC_01'],
    ['$LIB#@', '$LIB#@'],
    // $ # @ as CCSID 285 and 297 show them; à does not fold, its capital is another byte.
    ['£lib', '£LIB'],
    ['prixà', 'PRIXà'],
    ['_X', '_X'],
    ['ABCDEFGHIJ', 'ABCDEFGHIJ'],
  ])('accepts %s and stores %s', (input, stored) => {
    const parsed = value(
      parseSection(jr.hostCredentials, {
        ...jrCredentials,
        syncLibrary: input,
        journalCheckpointTable: input,
      }),
    );
    expect(parsed.syncLibrary).toBe(stored);
    expect(parsed.journalCheckpointTable).toBe(stored);
  });

  it.each([
    '',
    '1SYNC',
    'ABCDEFGHIJK',
    'SY NC',
    'SYNC;',
    'SYNC)',
    'QSYS/X',
    "A'B",
    'ÉBC',
    '¢SYNC',
    'SYNC*ALL',
  ])('refuses %j before it can reach SQL or CL', (bad) => {
    const found = problems(
      parseSection(jr.hostCredentials, { ...jrCredentials, syncLibrary: bad, journalCheckpointTable: bad }),
    );
    expect(found.map((p) => p.pointer)).toEqual([
      '/hostCredentials/syncLibrary',
      '/hostCredentials/journalCheckpointTable',
    ]);
    expect(found[0]?.rule).toMatch(
      /1 to 10 characters of A-Z, 0-9, _, \$, # or @ \(or the characters the system shows in their place, such as £ for \$ under CCSID 285\), not starting with a digit/,
    );
  });
});

describe('required fields', () => {
  const required = ['connectionName', 'host', 'databaseName', 'username', 'password'];

  it.each([
    ['change-tracking', ct.hostCredentials],
    ['journal', jr.hostCredentials],
  ] as const)('%s: all five are reported at once, each by pointer', (_type, section) => {
    const found = problems(parseSection(section, {}));
    expect(found.map((p) => p.pointer)).toEqual(required.map((k) => `/hostCredentials/${k}`));
    expect(found.every((p) => p.message.includes('is required'))).toBe(true);
    expect(found.find((p) => p.pointer.endsWith('/host'))?.message).toBe(
      'Host is required: DNS name or IP address of the server.',
    );
  });

  it('refuses empty strings in required fields', () => {
    const found = problems(parseSection(ct.hostCredentials, { ...ctCredentials, host: '', password: '' }));
    expect(found.map((p) => p.pointer)).toEqual(['/hostCredentials/host', '/hostCredentials/password']);
  });

  it('keeps optional fields optional', () => {
    expect(value(parseSection(ct.hostCredentials, ctCredentials))).not.toHaveProperty('certificatePath');
    expect(value(parseSection(ct.configuration, {}))).not.toHaveProperty('temporaryTablePrefix');
  });
});

describe('unknown keys and wrong types', () => {
  it('refuses an unknown key, naming it and every allowed key', () => {
    const [problem] = problems(
      parseSection(ct.configuration, { enableRecursionProtection: true, retentionDays: 3 }),
    );
    expect(problem).toMatchObject({ pointer: '/configuration/retentionDays', received: '3' });
    expect(problem?.message).toBe(
      '"retentionDays" is not a field of configuration; the allowed keys are: enableRecursionProtection, temporaryTablePrefix, sourceChangeRetentionDays, retentionWarningPercent, startAt, stopAt, heartbeatSeconds, provenanceOperation, provenanceCommitTime, provenancePosition, provenanceTransaction, snapshotMode, snapshotChunkRows, droppedColumns, onTableError, maxExceptions, schemaChanges, droppedTables.',
    );
  });

  it('refuses prototype keys as unknown, without touching the prototype', () => {
    const body = JSON.parse('{"__proto__": {"polluted": true}, "constructor": 1}') as unknown;
    const found = problems(parseSection(ct.configuration, body));
    expect(found.map((p) => p.pointer).sort()).toEqual([
      '/configuration/__proto__',
      '/configuration/constructor',
    ]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each([
    ['port', '1433', '"1433"'],
    ['port', 1433.5, '1433.5'],
    ['port', null, 'null'],
    ['enableTls', 'true', '"true"'],
    ['enableTls', 1, '1'],
    ['host', 42, '42'],
    ['maxConnectionsCount', [5], '[5]'],
    ['certificatePath', false, 'false'],
  ])('refuses %s = %j and shows what it got', (key, bad, shown) => {
    const [problem] = problems(parseSection(ct.hostCredentials, { ...ctCredentials, [key]: bad }));
    expect(problem?.pointer).toBe(`/hostCredentials/${key}`);
    expect(problem?.received).toBe(shown);
    expect(problem?.message).toContain(`; got ${shown}.`);
  });

  it('refuses a body that is not an object', () => {
    for (const bad of [null, [], 'x', 3]) {
      expect(problems(parseSection(ct.hostCredentials, bad))[0]?.pointer).toBe('/hostCredentials');
    }
  });

  it('reports every problem at once', () => {
    const found = problems(
      parseSection(ct.hostCredentials, {
        ...ctCredentials,
        port: 0,
        enableTls: 'yes',
        maxConnectionsCount: 1000,
        extra: 1,
      }),
    );
    expect(found.map((p) => p.pointer).sort()).toEqual([
      '/hostCredentials/enableTls',
      '/hostCredentials/extra',
      '/hostCredentials/maxConnectionsCount',
      '/hostCredentials/port',
    ]);
  });

  it('never prints a password it refuses', () => {
    const secret = 'x'.repeat(129) + 'TOPSECRET';
    const found = problems(parseSection(jr.hostCredentials, { ...jrCredentials, password: secret }));
    expect(found[0]).toMatchObject({ pointer: '/hostCredentials/password', received: '(hidden)' });
    expect(JSON.stringify(found)).not.toContain('TOPSECRET');
    expect(JSON.stringify(found)).not.toContain('xxxxxxxx');
  });
});

describe('journal: port is refused with the reason', () => {
  it('refuses port, explaining IBM i host servers use fixed ports', () => {
    const found = problems(parseSection(jr.hostCredentials, { ...jrCredentials, port: 8471 }));
    expect(found).toHaveLength(1);
    expect(found[0]?.pointer).toBe('/hostCredentials/port');
    expect(found[0]?.message).toMatch(
      /^"port" is refused: .*IBM i host servers listen on fixed, well-known ports/,
    );
  });

  it('refuses port even when it is the change-tracking default', () => {
    expect(problems(parseSection(jr.hostCredentials, { ...jrCredentials, port: 1433 }))[0]?.pointer).toBe(
      '/hostCredentials/port',
    );
  });
});

describe('date/time format inheritance (decisions.md)', () => {
  it('configuration wins, then host credentials, then iso', () => {
    expect(
      effectiveJournalFormats(
        { dateFormat: 'usa', timeFormat: 'hms' },
        { dateFormat: 'julian', timeFormat: 'eur' },
      ),
    ).toEqual({
      dateFormat: 'julian',
      timeFormat: 'eur',
    });
    expect(
      effectiveJournalFormats(
        { dateFormat: 'usa', timeFormat: 'hms' },
        { dateFormat: null, timeFormat: null },
      ),
    ).toEqual({
      dateFormat: 'usa',
      timeFormat: 'hms',
    });
    expect(effectiveJournalFormats({ dateFormat: 'mdy' }, { timeFormat: 'jis' })).toEqual({
      dateFormat: 'mdy',
      timeFormat: 'jis',
    });
    expect(effectiveJournalFormats({}, {})).toEqual({ dateFormat: 'iso', timeFormat: 'iso' });
    expect(effectiveJournalFormats(undefined, undefined)).toEqual({ dateFormat: 'iso', timeFormat: 'iso' });
  });

  it('works from parsed objects: an empty configuration inherits the host credentials', () => {
    const hc = value(parseSection(jr.hostCredentials, { ...jrCredentials, dateFormat: 'dmy' }));
    const cfg = value(parseSection(jr.configuration, {}));
    expect(effectiveJournalFormats(hc, cfg)).toEqual({ dateFormat: 'dmy', timeFormat: 'iso' });
  });
});

describe('redaction', () => {
  it('replaces the password with null and says one is set', () => {
    const parsed = value(parseSection(ct.hostCredentials, ctCredentials));
    const shown = redactSection(ct.hostCredentials, parsed);
    expect(shown.password).toBeNull();
    expect(shown.passwordSet).toBe(true);
    expect(JSON.stringify(shown)).not.toContain(ctCredentials.password);
  });
});
