// The sample system of sandbox mode: profile CDCAGENT as source-agents.md suggests it and a weaker
// CDCREAD; library SHOP made by CREATE SCHEMA (SQL tables, journaled to QSQJRN) and library LEGACY
// with DDS files (an *MDY date, CCSID 273 text, packed and zoned decimals, a file with no key and
// two members) journaled to LEGACY/JRN. Built through the same interface the agent uses.
import { journalHostCredentials, type JournalHostCredentials } from '../../shared/agents/journal';
import { suggestedProfile, type UserProfile } from './system/users';
import type { IbmiConnection } from '../../lib/ibmi/connection';
import type { SimulatedConnectOptions } from './session';

export const SEED_AGENT = { user: 'CDCAGENT', password: 'Sandbox-1' };
export const SEED_READER = { user: 'CDCREAD', password: 'Sandbox-2' };
export const SEED_ADMIN = { user: 'QSECOFR', password: 'QSECOFR' };

/** A journal agent's hostCredentials for a sandbox host, signed on as CDCAGENT, the schema's defaults filled in. */
export const seedAgentCredentials = (
  host: string,
  over: Partial<JournalHostCredentials> = {},
): JournalHostCredentials =>
  journalHostCredentials.schema.parse({
    connectionName: 'sandbox',
    host,
    databaseName: '*SYSBAS',
    username: SEED_AGENT.user,
    password: SEED_AGENT.password,
    maxConnectionsCount: 2,
    ...over,
  });

export const SEED_USERS: UserProfile[] = [
  suggestedProfile(SEED_AGENT.user, SEED_AGENT.password),
  {
    ...suggestedProfile(SEED_READER.user, SEED_READER.password),
    groupProfile: null,
    passwordExpirationInterval: 90,
    limitCapabilities: '*YES',
    text: 'Reads SHOP only',
  },
];

export const ITEMS_DDS = [
  '     A                                      UNIQUE',
  "     A          R ITEMR                     TEXT('Item master')",
  '     A            ITEMNO         6S 0',
  '     A            NAME          20A         CCSID(273)',
  '     A            PRICE          9P 2',
  '     A            STOCK          7S 0',
  "     A            ADDED           L         DATFMT(*MDY) DATSEP('/')",
  '     A            REVIEWED        L         DATFMT(*JUL) ALWNULL',
  '     A          K ITEMNO',
].join('\n');

export const NOTES_DDS = [
  '     A          R NOTER',
  '     A            NOTE          40A',
  '     A            WRITTEN         Z',
].join('\n');

/** What seeding needs of a system: a sign-on, and a way to put DDS into a source member. */
interface Seedable {
  connect(options: SimulatedConnectOptions): Promise<IbmiConnection>;
  putSource(library: string, file: string, member: string, text: string): void;
}

export async function seedIbmi(sandbox: Seedable): Promise<void> {
  const c = await sandbox.connect({ ...SEED_ADMIN, defaultLibrary: 'QGPL' });
  try {
    await c.query('CREATE SCHEMA SHOP');
    await c.query(
      'CREATE TABLE SHOP.CUSTOMER (ID INTEGER NOT NULL PRIMARY KEY, NAME VARCHAR(40) NOT NULL, CITY CHAR(20), ' +
        'BALANCE DECIMAL(11,2) NOT NULL WITH DEFAULT, SINCE DATE)',
    );
    await c.query(
      'CREATE TABLE SHOP.ORDERS (ORDERNO BIGINT NOT NULL, CUSTID INTEGER NOT NULL, AMOUNT NUMERIC(9,2) NOT NULL, ' +
        'PLACED TIMESTAMP NOT NULL, NOTE VARCHAR(100), CONSTRAINT ORDERS_PK PRIMARY KEY (ORDERNO))',
    );
    await c.command('CHGJRNOBJ OBJ((SHOP/CUSTOMER *FILE) (SHOP/ORDERS *FILE)) ATR(*IMAGES) IMAGES(*BOTH)');
    const cities = ['Berlin', 'Zürich', 'Lyon', 'Porto', 'Oslo'];
    for (let i = 1; i <= 25; i++)
      await c.query('INSERT INTO SHOP.CUSTOMER (ID, NAME, CITY, BALANCE, SINCE) VALUES (?, ?, ?, ?, ?)', [
        i,
        `Customer ${i}`,
        cities[i % cities.length] ?? null,
        `${i * 10}.50`,
        `2020-0${(i % 9) + 1}-1${i % 9}`,
      ]);
    for (let i = 1; i <= 40; i++)
      await c.query('INSERT INTO SHOP.ORDERS VALUES (?, ?, ?, ?, ?)', [
        1000 + i,
        (i % 25) + 1,
        `${i * 3}.25`,
        `2026-01-${String((i % 28) + 1).padStart(2, '0')}-10.00.00.000000`,
        i % 4 === 0 ? null : `Order ${i}`,
      ]);

    await c.command("CRTLIB LIB(LEGACY) TEXT('DDS files')");
    await c.command('CRTJRNRCV JRNRCV(LEGACY/JRN0001)');
    await c.command('CRTJRN JRN(LEGACY/JRN) JRNRCV(LEGACY/JRN0001)');
    await c.command('CRTSRCPF FILE(LEGACY/QDDSSRC) RCDLEN(92)');
    sandbox.putSource('LEGACY', 'QDDSSRC', 'ITEMS', ITEMS_DDS);
    sandbox.putSource('LEGACY', 'QDDSSRC', 'NOTES', NOTES_DDS);
    await c.command('CRTPF FILE(LEGACY/ITEMS) SRCFILE(LEGACY/QDDSSRC) SRCMBR(ITEMS)');
    await c.command('CRTPF FILE(LEGACY/NOTES) SRCFILE(LEGACY/QDDSSRC) MAXMBRS(*NOMAX)');
    await c.command('ADDPFM FILE(LEGACY/NOTES) MBR(ARCHIVE)');
    await c.command('STRJRNPF FILE(LEGACY/ITEMS LEGACY/NOTES) JRN(LEGACY/JRN) IMAGES(*BOTH)');
    for (let i = 1; i <= 12; i++)
      await c.query('INSERT INTO LEGACY.ITEMS VALUES (?, ?, ?, ?, ?, ?)', [
        i,
        `Artikel Größe ${i}`,
        `${i * 2}.99`,
        i * 5,
        `2025-0${(i % 9) + 1}-0${(i % 9) + 1}`,
        i % 3 === 0 ? null : '2026-02-01',
      ]);
    for (let i = 1; i <= 5; i++)
      await c.query('INSERT INTO LEGACY.NOTES VALUES (?, ?)', [`Note ${i}`, `2026-03-0${i}-08.30.00.000000`]);
    await c.command('GRTOBJAUT OBJ(LEGACY) OBJTYPE(*LIB) USER(CDCREAD) AUT(*EXCLUDE)');
    await c.command('GRTOBJAUT OBJ(CRTLIB) OBJTYPE(*CMD) USER(CDCREAD) AUT(*EXCLUDE)');
  } finally {
    await c.close();
  }
}
