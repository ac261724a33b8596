// The simulated IBM i through the IbmiConnection interface: the DSPJRN and DSPFFD outfiles, DDS
// files decoded by their own layout, the catalog, sign-on, authority and command errors.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { IbmiConnection } from '../../../lib/ibmi/connection';
import { decodeRecord, type FieldDef } from '../../../lib/ibmi/recordImage';
import type { DateFormat } from '../../../lib/ibmi/dateTime';
import type { SandboxIbmi } from '..';
import { SEED_AGENT, SEED_READER } from '../seed';
import { dspjrn, failure, seededIbmi } from '../../../test/helpers/ibmi';

let sandbox: SandboxIbmi;
let c: IbmiConnection;
beforeEach(async () => ({ sandbox, admin: c } = await seededIbmi()));
afterEach(() => sandbox.close());

const FORMATS: Record<string, DateFormat> = { '*MDY': 'mdy', '*JUL': 'julian', '*ISO': 'iso' };

/** The layout DSPFFD describes, as the journal agent will read it with DDS discovery on. */
async function layoutFromDspffd(file: string): Promise<FieldDef[]> {
  await c.command(`DSPFFD FILE(${file}) OUTPUT(*OUTFILE) OUTFILE(QGPL/FFD)`);
  const rows = await c.query(
    'SELECT WHFLDE, WHFLDT, WHFLDB, WHFLDD, WHFLDP, WHCCSID, WHNULL, WHFMT, WHSEP FROM QGPL.FFD ORDER BY WHFOBO',
  );
  return rows.map((r) => {
    const name = String(r.WHFLDE).trim();
    const [digits, places, bytes, ccsid] = [r.WHFLDD, r.WHFLDP, r.WHFLDB, r.WHCCSID].map(Number) as [
      number,
      number,
      number,
      number,
    ];
    const t = String(r.WHFLDT);
    const type =
      t === 'P'
        ? ({ kind: 'packed', precision: digits, scale: places } as const)
        : t === 'S'
          ? ({ kind: 'zoned', precision: digits, scale: places } as const)
          : t === 'L'
            ? ({ kind: 'date', format: FORMATS[String(r.WHFMT).trim()] ?? 'iso', ccsid } as const)
            : t === 'Z'
              ? ({ kind: 'timestamp', ccsid } as const)
              : ({ kind: 'char', length: bytes, ccsid } as const);
    return { name, type, nullable: r.WHNULL === 'Y' };
  });
}

describe('DSPFFD and DSPJRN outfiles', () => {
  it('DSPFFD describes a DDS file: offsets, lengths, types, CCSIDs, date formats and null capability', async () => {
    await c.command('DSPFFD FILE(LEGACY/ITEMS) OUTPUT(*OUTFILE) OUTFILE(QGPL/FFD)');
    const rows = await c.query(
      'SELECT WHFLDE, WHFOBO, WHFLDB, WHFLDD, WHFLDP, WHFLDT, WHCCSID, WHNULL, WHFMT FROM QGPL.FFD',
    );
    expect(
      rows.map((r) => [
        String(r.WHFLDE).trim(),
        r.WHFOBO,
        r.WHFLDB,
        r.WHFLDT,
        r.WHCCSID,
        r.WHNULL,
        String(r.WHFMT).trim(),
      ]),
    ).toEqual([
      ['ITEMNO', '1', '6', 'S', '0', 'N', ''],
      ['NAME', '7', '20', 'A', '273', 'N', ''],
      ['PRICE', '27', '5', 'P', '0', 'N', ''],
      ['STOCK', '32', '7', 'S', '0', 'N', ''],
      ['ADDED', '39', '8', 'L', '37', 'N', '*MDY'],
      ['REVIEWED', '47', '6', 'L', '37', 'Y', '*JUL'],
    ]);
  });

  it('DSPFFD lib/*ALL and a generic name describe every such file the profile may use, each row with its file', async () => {
    await c.query('CREATE SCHEMA MANYF');
    for (const name of ['ABC1', 'ABC2', 'XYZ'])
      await c.query(`CREATE TABLE MANYF.${name} (ID INTEGER NOT NULL, NAME VARCHAR(10))`);
    // A file the agent's profile may not use is passed over, not a failure of the whole command.
    await c.command('RVKOBJAUT OBJ(MANYF/XYZ) OBJTYPE(*FILE) USER(*PUBLIC) AUT(*ALL)');
    const agent = await sandbox.connect({ ...SEED_AGENT });
    const described = async (file: string) => {
      await agent.command(`DSPFFD FILE(MANYF/${file}) OUTPUT(*OUTFILE) OUTFILE(QGPL/FFDALL)`);
      const rows = await agent.query('SELECT WHFILE, WHLIB, WHFLDE FROM QGPL.FFDALL ORDER BY WHFILE, WHFOBO');
      return rows.map((r) => [r.WHFILE, r.WHLIB, r.WHFLDE].map((v) => String(v).trim()).join('.'));
    };
    expect(await described('*ALL')).toEqual([
      'ABC1.MANYF.ID',
      'ABC1.MANYF.NAME',
      'ABC2.MANYF.ID',
      'ABC2.MANYF.NAME',
    ]);
    expect(await described('ABC2*')).toEqual(['ABC2.MANYF.ID', 'ABC2.MANYF.NAME']);
    // Named alone, the same file is refused; a generic name that finds nothing usable is CPF3012.
    const alone = await failure(
      agent.command('DSPFFD FILE(MANYF/XYZ) OUTPUT(*OUTFILE) OUTFILE(QGPL/FFDALL)'),
    );
    expect(alone.messageId).toBe('CPF9802');
    const none = await failure(agent.command('DSPFFD FILE(MANYF/XY*) OUTPUT(*OUTFILE) OUTFILE(QGPL/FFDALL)'));
    expect(none.messageId).toBe('CPF3012');
    await agent.close();
  });

  it('a journaled DDS record decodes right with the DSPFFD layout, and wrongly with the ISO dates SQL reports', async () => {
    await c.query("UPDATE LEGACY.ITEMS SET PRICE = 12.34, ADDED = '2026-11-22' WHERE ITEMNO = 3");
    const rows = await dspjrn(c, 'LEGACY/JRN', 'FILE((LEGACY/ITEMS)) JRNCDE((R)) ENTTYP(UP)');
    const up = rows.at(-1);
    const layout = await layoutFromDspffd('LEGACY/ITEMS');
    expect(decodeRecord(layout, up?.esd ?? new Uint8Array(), up?.nvi)).toEqual({
      ITEMNO: '3',
      NAME: 'Artikel Größe 3     ',
      PRICE: '12.34',
      STOCK: '15',
      ADDED: '2026-11-22',
      REVIEWED: null,
    });
    // SQL describes ADDED as a DATE and nothing more: read as *ISO it does not even parse.
    const cols = await c.query(
      "SELECT COLUMN_NAME, DATA_TYPE, LENGTH FROM QSYS2.SYSCOLUMNS WHERE TABLE_SCHEMA = 'LEGACY' AND TABLE_NAME = 'ITEMS' AND COLUMN_NAME = 'ADDED'",
    );
    expect(cols).toEqual([{ COLUMN_NAME: 'ADDED', DATA_TYPE: 'DATE', LENGTH: 10 }]);
    const naive = layout.map((f) =>
      f.type.kind === 'date' ? { ...f, type: { ...f.type, format: 'iso' as const } } : f,
    );
    expect(() => decodeRecord(naive, up?.esd ?? new Uint8Array(), up?.nvi)).toThrow();
  });

  it('DSPJRN FILE selects the first member by default (*FIRST), every member with *ALL, as IBM documents', async () => {
    await c.query('CREATE ALIAS QGPL.NOTESARC FOR LEGACY.NOTES(ARCHIVE)');
    await c.query("INSERT INTO QGPL.NOTESARC VALUES ('archived', '2026-01-01-00.00.00')");
    await c.query("INSERT INTO LEGACY.NOTES VALUES ('current', '2026-01-01-00.00.00')");
    const members = async (file: string) =>
      (await dspjrn(c, 'LEGACY/JRN', `FILE(${file}) RCVRNG(*CURCHAIN) JRNCDE((R))`)).map((r) =>
        String(r.member),
      );
    expect(new Set(await members('(LEGACY/NOTES)'))).toEqual(new Set(['NOTES']));
    expect(new Set(await members('(LEGACY/NOTES *ALL)'))).toEqual(new Set(['NOTES', 'ARCHIVE']));
    expect(new Set(await members('(LEGACY/NOTES ARCHIVE)'))).toEqual(new Set(['ARCHIVE']));
  });

  it('the *TYPE5 outfile has the documented columns; FILE selection drops C entries unless *IGNFILSLT', async () => {
    await c.command('CHGJRNOBJ OBJ((LEGACY/NOTES *FILE)) ATR(*IMAGES) IMAGES(*BOTH)');
    await c.transaction((t) => t.query("INSERT INTO LEGACY.NOTES VALUES ('tx', '2026-01-01-00.00.00')"));
    const without = await dspjrn(c, 'LEGACY/JRN', 'FILE((LEGACY/NOTES)) RCVRNG(*CURCHAIN) JRNCDE((C) (R))');
    expect(without.map((r) => r.code)).not.toContain('C');
    const withC = await dspjrn(
      c,
      'LEGACY/JRN',
      'FILE((LEGACY/NOTES)) RCVRNG(*CURCHAIN) JRNCDE((C *IGNFILSLT) (R))',
    );
    expect(withC.slice(-3).map((r) => `${r.code} ${r.type}`)).toEqual(['C SC', 'R PT', 'C CM']);
    const cols = await c.query(
      "SELECT COLUMN_NAME FROM QSYS2.SYSCOLUMNS WHERE TABLE_SCHEMA = 'QGPL' AND TABLE_NAME = 'JRNOUT' ORDER BY ORDINAL_POSITION",
    );
    const names = cols.map((r) => r.COLUMN_NAME);
    for (const n of [
      'JOSEQN',
      'JOCODE',
      'JOENTT',
      'JOTSTP',
      'JOJOB',
      'JOUSER',
      'JONBR',
      'JOPGM',
      'JOOBJ',
      'JOLIB',
      'JOMBR',
      'JOCTRR',
      'JOCCID',
      'JORCV',
      'JORCVLIB',
      'JONVI',
      'JOESD',
    ])
      expect(names).toContain(n);
    const job = await c.query('SELECT JOJOB, JOUSER, JOUSPF FROM QGPL.JRNOUT FETCH FIRST 1 ROW ONLY');
    expect(job).toEqual([{ JOJOB: 'QZDASOINIT', JOUSER: 'QUSER     ', JOUSPF: 'QSECOFR   ' }]);
  });

  it('DSPJRN answers CPF7062 when nothing matches, and FROMENTLRG/TOENTLRG bound the range', async () => {
    const e = await failure(
      c.command(
        'DSPJRN JRN(LEGACY/JRN) FROMENTLRG(999999) OUTPUT(*OUTFILE) OUTFILFMT(*TYPE5) OUTFILE(QGPL/X)',
      ),
    );
    expect(e.messageId).toBe('CPF7062');
    expect(e.message).toBe('CPF7062: No entries converted or received from journal JRN in library LEGACY.');
    const some = await dspjrn(c, 'LEGACY/JRN', 'FROMENTLRG(3) TOENTLRG(5)');
    expect(some.map((r) => r.seq)).toEqual([3, 4, 5]);
  });
});

describe('catalog', () => {
  it('SYSCST and SYSKEYCST give an SQL table its primary key; a DDS unique key is no constraint', async () => {
    const keys = await c.query(
      "SELECT K.COLUMN_NAME, C.CONSTRAINT_TYPE FROM QSYS2.SYSCST C JOIN QSYS2.SYSKEYCST K ON K.CONSTRAINT_SCHEMA = C.CONSTRAINT_SCHEMA AND K.CONSTRAINT_NAME = C.CONSTRAINT_NAME WHERE C.TABLE_SCHEMA IN ('SHOP', 'LEGACY') ORDER BY C.TABLE_NAME",
    );
    expect(keys).toEqual([
      { COLUMN_NAME: 'ID', CONSTRAINT_TYPE: 'PRIMARY KEY' },
      { COLUMN_NAME: 'ORDERNO', CONSTRAINT_TYPE: 'PRIMARY KEY' },
    ]);
  });

  it('OBJECT_STATISTICS shows journaling per file; JOURNAL_INFO the attached receiver', async () => {
    const files = await c.query(
      "SELECT OBJNAME, JOURNALED, JOURNAL_LIBRARY, JOURNAL_NAME, JOURNAL_IMAGES FROM TABLE(QSYS2.OBJECT_STATISTICS(?, '*FILE')) X ORDER BY OBJNAME",
      ['SHOP'],
    );
    expect(files).toEqual([
      {
        OBJNAME: 'CUSTOMER',
        JOURNALED: 'YES',
        JOURNAL_LIBRARY: 'SHOP',
        JOURNAL_NAME: 'QSQJRN',
        JOURNAL_IMAGES: '*BOTH',
      },
      {
        OBJNAME: 'ORDERS',
        JOURNALED: 'YES',
        JOURNAL_LIBRARY: 'SHOP',
        JOURNAL_NAME: 'QSQJRN',
        JOURNAL_IMAGES: '*BOTH',
      },
    ]);
    const j = await c.query(
      "SELECT ATTACHED_JOURNAL_RECEIVER_NAME AS R FROM QSYS2.JOURNAL_INFO WHERE JOURNAL_LIBRARY = 'LEGACY'",
    );
    expect(j).toEqual([{ R: 'JRN0001' }]);
  });

  it('USER_INFO shows the suggested profile as the spec lists it', async () => {
    const agent = await sandbox.connect(SEED_AGENT);
    expect(
      await agent.query(
        'SELECT AUTHORIZATION_NAME, USER_CLASS_NAME, GROUP_PROFILE_NAME, STATUS, PASSWORD_EXPIRATION_INTERVAL, SPECIAL_AUTHORITIES, LIMIT_CAPABILITIES FROM QSYS2.USER_INFO',
      ),
    ).toEqual([
      {
        AUTHORIZATION_NAME: 'CDCAGENT',
        USER_CLASS_NAME: '*USER',
        GROUP_PROFILE_NAME: 'QPGMR',
        STATUS: '*ENABLED',
        PASSWORD_EXPIRATION_INTERVAL: -1,
        SPECIAL_AUTHORITIES: null,
        LIMIT_CAPABILITIES: '*NO',
      },
    ]);
    expect(await agent.query('VALUES (CURRENT USER, CURRENT SCHEMA)')).toEqual([
      { '00001': 'CDCAGENT', '00002': 'CDCAGENT' },
    ]);
  });

  it('SQL values are typed as the driver answers: exact decimals, padded CHAR, BIGINT as bigint', async () => {
    expect(await c.query('SELECT ORDERNO, AMOUNT, NOTE FROM SHOP.ORDERS WHERE ORDERNO = ?', [1004])).toEqual([
      { ORDERNO: 1004n, AMOUNT: '12.25', NOTE: null },
    ]);
    expect(
      await c.query("SELECT CITY FROM SHOP.CUSTOMER WHERE CITY = 'Oslo' FETCH FIRST 1 ROW ONLY"),
    ).toEqual([{ CITY: 'Oslo'.padEnd(20) }]);
    expect(
      (await failure(c.query("INSERT INTO SHOP.CUSTOMER (ID, NAME) VALUES (99, '" + 'x'.repeat(41) + "')")))
        .messageId,
    ).toBe('SQL0404');
    expect(
      (await failure(c.query('INSERT INTO SHOP.CUSTOMER (ID, NAME) VALUES (1, ?)', ['dup']))).messageId,
    ).toBe('SQL0803');
    expect((await failure(c.query('INSERT INTO SHOP.CUSTOMER (ID) VALUES (98)'))).messageId).toBe('SQL0407');
    expect((await failure(c.query('SELECT * FROM SHOP.NOPE'))).messageId).toBe('SQL0204');
  });

  it('BIGINT takes its whole range from a bound bigint, a literal and INSERT … SELECT; one past it is SQL0406', async () => {
    await c.query('CREATE SCHEMA WIDE');
    await c.query('CREATE TABLE WIDE.N (ID INTEGER NOT NULL PRIMARY KEY, BIG BIGINT)');
    await c.query('INSERT INTO WIDE.N VALUES (1, ?), (2, ?)', [9223372036854775807n, -9223372036854775808n]);
    await c.query('INSERT INTO WIDE.N VALUES (3, 9223372036854775806)');
    await c.query('INSERT INTO WIDE.N SELECT ID + 10, BIG FROM WIDE.N WHERE ID = 1');
    expect(await c.query('SELECT ID, BIG FROM WIDE.N ORDER BY ID')).toEqual([
      { ID: 1, BIG: 9223372036854775807n },
      { ID: 2, BIG: -9223372036854775808n },
      { ID: 3, BIG: 9223372036854775806n },
      { ID: 11, BIG: 9223372036854775807n },
    ]);
    expect(
      (await failure(c.query('INSERT INTO WIDE.N VALUES (4, ?)', ['9223372036854775808']))).messageId,
    ).toBe('SQL0406');
  });
});

describe('BOOLEAN and ROWID columns', () => {
  beforeEach(async () => {
    await c.query('CREATE SCHEMA FLAGS');
    await c.query(
      'CREATE TABLE FLAGS.F (ID INTEGER NOT NULL PRIMARY KEY, ACTIVE BOOLEAN NOT NULL, MAYBE BOOLEAN, RID ROWID)',
    );
  });

  it('take the truth values IBM lists (any case, numbers 0 and not 0) and refuse others with SQL0420', async () => {
    await c.query(
      "INSERT INTO FLAGS.F (ID, ACTIVE, MAYBE) VALUES (1, TRUE, 'off'), (2, 'Yes', 0), (3, 7, NULL)",
    );
    await c.query('INSERT INTO FLAGS.F (ID, ACTIVE, MAYBE) VALUES (4, ?, ?)', [' t ', 'N']);
    expect(await c.query('SELECT ID, ACTIVE, MAYBE FROM FLAGS.F ORDER BY ID')).toEqual([
      { ID: 1, ACTIVE: 1, MAYBE: 0 },
      { ID: 2, ACTIVE: 1, MAYBE: 0 },
      { ID: 3, ACTIVE: 1, MAYBE: null },
      { ID: 4, ACTIVE: 1, MAYBE: 0 },
    ]);
    expect(await c.query('SELECT ID FROM FLAGS.F WHERE MAYBE = FALSE ORDER BY ID')).toEqual([
      { ID: 1 },
      { ID: 2 },
      { ID: 4 },
    ]);
    expect((await failure(c.query("INSERT INTO FLAGS.F (ID, ACTIVE) VALUES (5, 'maybe')"))).messageId).toBe(
      'SQL0420',
    );
  });

  it('a ROWID is made by the database: 40 bytes, unique, and GENERATED ALWAYS refuses a value (SQL0798)', async () => {
    await c.query('INSERT INTO FLAGS.F (ID, ACTIVE) VALUES (1, TRUE), (2, FALSE)');
    const ids = (await c.query('SELECT RID FROM FLAGS.F ORDER BY ID')).map((r) =>
      Buffer.from(r.RID as Uint8Array),
    );
    expect(ids.map((b) => b.length)).toEqual([40, 40]);
    expect(ids[0]?.equals(ids[1] ?? Buffer.alloc(0))).toBe(false);
    expect(
      (await failure(c.query('INSERT INTO FLAGS.F (ID, ACTIVE, RID) VALUES (3, TRUE, ?)', [ids[0] ?? null])))
        .messageId,
    ).toBe('SQL0798');
    expect((await failure(c.query("UPDATE FLAGS.F SET RID = X'00'"))).messageId).toBe('SQL0798');
  });

  it("SYSCOLUMNS names them with their lengths, and a journal entry holds x'F1'/x'F0' and the ROWID", async () => {
    expect(
      await c.query(
        "SELECT COLUMN_NAME, DATA_TYPE, LENGTH, IS_NULLABLE FROM QSYS2.SYSCOLUMNS WHERE TABLE_SCHEMA = 'FLAGS' ORDER BY ORDINAL_POSITION",
      ),
    ).toEqual([
      { COLUMN_NAME: 'ID', DATA_TYPE: 'INTEGER', LENGTH: 4, IS_NULLABLE: 'N' },
      { COLUMN_NAME: 'ACTIVE', DATA_TYPE: 'BOOLEAN', LENGTH: 1, IS_NULLABLE: 'N' },
      { COLUMN_NAME: 'MAYBE', DATA_TYPE: 'BOOLEAN', LENGTH: 1, IS_NULLABLE: 'Y' },
      { COLUMN_NAME: 'RID', DATA_TYPE: 'ROWID', LENGTH: 40, IS_NULLABLE: 'N' },
    ]);
    await c.query('INSERT INTO FLAGS.F (ID, ACTIVE, MAYBE) VALUES (1, TRUE, FALSE)');
    const [rid] = (await c.query('SELECT RID FROM FLAGS.F')).map((r) => Buffer.from(r.RID as Uint8Array));
    const [entry] = (await dspjrn(c, 'FLAGS/QSQJRN')).filter((e) => e.type === 'PT');
    // INTEGER 1, x'F1', x'F0', then the ROWID's 2-byte length and its 40 bytes.
    const image = Buffer.from(entry?.esd ?? []);
    expect(image.subarray(0, 6).toString('hex').toUpperCase()).toBe('00000001F1F0');
    expect(image.readUInt16BE(6)).toBe(40);
    expect(image.subarray(8, 48).equals(rid ?? Buffer.alloc(0))).toBe(true);
  });
});

describe('sign-on and authority', () => {
  it('a wrong password, an unknown or a disabled profile is refused with its CPF message', async () => {
    await expect(sandbox.connect({ user: 'CDCAGENT', password: 'wrong' })).rejects.toMatchObject({
      messageId: 'CPF22E2',
    });
    await expect(sandbox.connect({ user: 'NOBODY', password: 'x' })).rejects.toMatchObject({
      messageId: 'CPF2204',
    });
    const user = sandbox.system.users.get('CDCREAD');
    if (user) user.status = '*DISABLED';
    await expect(sandbox.connect(SEED_READER)).rejects.toMatchObject({ messageId: 'CPF22E3' });
  });

  it('a weaker profile is refused the library, the command and the files it lacks authority to', async () => {
    const reader = await sandbox.connect({ ...SEED_READER, defaultLibrary: 'QGPL' });
    expect((await reader.query('SELECT COUNT(*) AS N FROM SHOP.CUSTOMER'))[0]?.N).toBe(25);
    expect((await failure(reader.query('SELECT * FROM LEGACY.ITEMS'))).messageId).toBe('SQL0551');
    expect((await failure(reader.command('CRTLIB LIB(SYNC)'))).messageId).toBe('CPF9802');
    expect(
      (
        await failure(
          reader.command('DSPJRN JRN(LEGACY/JRN) OUTPUT(*OUTFILE) OUTFILFMT(*TYPE5) OUTFILE(QGPL/X)'),
        )
      ).messageId,
    ).toBe('CPF9820');
    expect((await failure(reader.command('DLTF FILE(SHOP/CUSTOMER)'))).messageId).toBe('CPF2189');
    expect((await failure(reader.command('CHGPF FILE(SHOP/CUSTOMER) REUSEDLT(*NO)'))).messageId).toBe(
      'CPF9802',
    );
  });

  it('CHKOBJ tells a file gone (CPF9801) from one the profile may not use (CPF9802)', async () => {
    const reader = await sandbox.connect({ ...SEED_READER, defaultLibrary: 'QGPL' });
    await reader.command('CHKOBJ OBJ(SHOP/CUSTOMER) OBJTYPE(*FILE) AUT(*USE)');
    await c.command('RVKOBJAUT OBJ(SHOP/CUSTOMER) OBJTYPE(*FILE) USER(*PUBLIC CDCREAD) AUT(*ALL)');
    await reader.command('CHKOBJ OBJ(SHOP/CUSTOMER) OBJTYPE(*FILE)');
    const refused = await failure(reader.command('CHKOBJ OBJ(SHOP/CUSTOMER) OBJTYPE(*FILE) AUT(*USE)'));
    expect(refused).toMatchObject({ messageId: 'CPF9802' });
    expect(refused.message).toMatch(/Not authorized to object CUSTOMER in SHOP\./);
    expect((await failure(reader.command('CHKOBJ OBJ(SHOP/NOSUCH) OBJTYPE(*FILE)'))).messageId).toBe(
      'CPF9801',
    );
    await c.command('GRTOBJAUT OBJ(SHOP/CUSTOMER) OBJTYPE(*FILE) USER(CDCREAD) AUT(*USE)');
    await reader.command('CHKOBJ OBJ(SHOP/CUSTOMER) OBJTYPE(*FILE) AUT(*USE)');
  });

  it('the suggested profile can create its sync library and work in it', async () => {
    const agent = await sandbox.connect(SEED_AGENT);
    await agent.command('CRTLIB LIB(SYNC)');
    await agent.query(
      'CREATE TABLE SYNC.JOURNALSCP (JRNLIB CHAR(10) NOT NULL, JRN CHAR(10) NOT NULL, SEQ DECIMAL(21,0))',
    );
    await agent.command('CHGPF FILE(SYNC/JOURNALSCP) REUSEDLT(*NO)');
    await dspjrn(agent, 'SHOP/QSQJRN', 'FROMENTLRG(1) TOENTLRG(2)').then((rows) =>
      expect(rows.length).toBe(2),
    );
    await agent.command('DLTF FILE(SYNC/JOURNALSCP)');
    const privileges = await agent.query(
      "SELECT AUTHORIZATION_NAME, OBJECT_AUTHORITY FROM QSYS2.OBJECT_PRIVILEGES WHERE SYSTEM_OBJECT_NAME = 'SYNC' AND OBJECT_TYPE = '*LIB' ORDER BY AUTHORIZATION_NAME",
    );
    expect(privileges).toEqual([
      { AUTHORIZATION_NAME: '*PUBLIC', OBJECT_AUTHORITY: '*CHANGE' },
      { AUTHORIZATION_NAME: 'CDCAGENT', OBJECT_AUTHORITY: '*ALL' },
    ]);
  });
});

describe('commands', () => {
  it('an unknown command, an unknown keyword, a missing parameter and a bad name are refused as QCMDEXC refuses them', async () => {
    const unknown = await failure(c.command('FROB LIB(X)'));
    expect([unknown.messageId, unknown.message]).toEqual([
      'CPF0006',
      'CPF0006: Errors occurred in command. CPD0030: Command FROB in library *LIBL not found.',
    ]);
    expect((await failure(c.command('CRTLIB LIB(X) COLOR(RED)'))).message).toContain('CPD0043');
    expect((await failure(c.command('CRTJRN JRN(QGPL/J)'))).message).toContain('CPD0072');
    expect((await failure(c.command("CRTLIB LIB('A;B')"))).message).toContain('CPD0078');
    expect((await failure(c.command('CRTLIB LIB(LEGACY)'))).messageId).toBe('CPF2111');
    expect((await failure(c.command('DLTF FILE(QGPL/NOPE)'))).messageId).toBe('CPF2105');
  });

  it('CALL QSYS2.QCMDEXC runs a command from SQL with the command as a bound parameter', async () => {
    await c.query('CALL QSYS2.QCMDEXC(?)', ['CRTLIB LIB(VIASQL)']);
    expect(await c.query("SELECT SCHEMA_NAME FROM QSYS2.SYSSCHEMAS WHERE SCHEMA_NAME = 'VIASQL'")).toEqual([
      { SCHEMA_NAME: 'VIASQL' },
    ]);
  });
});

describe('LENGTH', () => {
  it("counts a column's bytes in its CCSID, a graphic string's double-byte characters, and refuses XML", async () => {
    await c.query('CREATE SCHEMA DOCS');
    await c.query(
      'CREATE TABLE DOCS.D (ID INTEGER NOT NULL PRIMARY KEY, E CLOB(1M) CCSID 37, U CLOB(1M) CCSID 1208, G NCLOB(1M), B BLOB(1M), X XML)',
    );
    await c.query('INSERT INTO DOCS.D (ID, E, U, G, B) VALUES (1, ?, ?, ?, ?), (2, NULL, NULL, NULL, NULL)', [
      'Käse',
      'Käse😀',
      'Käse😀',
      Buffer.from([1, 2, 3]),
    ]);
    // EBCDIC 37: one byte a character; UTF-8: ä two bytes, the emoji four; UTF-16: the emoji is two units.
    expect(
      await c.query(
        'SELECT ID, LENGTH(E) AS E, LENGTH(T.U) AS U, LENGTH(G) AS G, LENGTH(B) AS B FROM DOCS.D T ORDER BY ID',
      ),
    ).toEqual([
      { ID: 1, E: 4, U: 9, G: 6, B: 3 },
      { ID: 2, E: null, U: null, G: null, B: null },
    ]);
    expect((await c.query('SELECT MAX(LENGTH(U)) AS M FROM DOCS.D'))[0]).toEqual({ M: 9 });
    expect((await failure(c.query('SELECT LENGTH(X) FROM DOCS.D'))).messageId).toBe('SQL0171');
  });
});
