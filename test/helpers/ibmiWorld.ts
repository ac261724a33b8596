// The IBM i files of the charsets suite, as IBM i shops have them: German CCSID 1141, Japanese mixed
// 939 with GRAPHIC 300, Unicode and binary columns, timestamps of every precision, BOOLEAN and ROWID,
// numbers at their widest. Written once here for every suite that replicates them.
import type { Entity } from '../../shared/controlApi';
import type { IbmiConnection } from '../../lib/ibmi/connection';
import { journalEntity } from './journal';

export const WORLD_FILES: Entity[] = ['KUNDEN', 'TOKUISAKI', 'UNIVERSE', 'SCHALTER', 'ZAHLEN'].map((t) =>
  journalEntity({ schema: 'WORLD', table: t }),
);

export async function createWorldFiles(admin: IbmiConnection): Promise<void> {
  await admin.query('CREATE SCHEMA WORLD');
  await admin.query(
    'CREATE TABLE WORLD.KUNDEN (ID INTEGER NOT NULL PRIMARY KEY, NAME CHAR(30) CCSID 1141 NOT NULL, ' +
      'ORT VARCHAR(40) CCSID 1141, BETRAG DECIMAL(31,2), RABATT DECFLOAT(16), SALDO DECFLOAT(34))',
  );
  await admin.query(
    'CREATE TABLE WORLD.TOKUISAKI (ID INTEGER NOT NULL PRIMARY KEY, NAME VARCHAR(40) CCSID 939 NOT NULL, ' +
      'KANA CHAR(20) CCSID 939, JUSHO GRAPHIC(12) CCSID 300, MEMO VARGRAPHIC(30) CCSID 300)',
  );
  await admin.query(
    'CREATE TABLE WORLD.UNIVERSE (ID INTEGER NOT NULL PRIMARY KEY, TITLE NCHAR(10), BODY NVARCHAR(40), ' +
      'UTF8 VARCHAR(40) CCSID 1208, RAW VARBINARY(8), FLAGS CHAR(4) FOR BIT DATA, ' +
      'AT0 TIMESTAMP(0), AT12 TIMESTAMP(12))',
  );
  await admin.query(
    'CREATE TABLE WORLD.SCHALTER (ID INTEGER NOT NULL PRIMARY KEY, AKTIV BOOLEAN NOT NULL, GEPRUEFT BOOLEAN, RID ROWID)',
  );
  await admin.query(
    'CREATE TABLE WORLD.ZAHLEN (ID INTEGER NOT NULL PRIMARY KEY, KLEIN SMALLINT, GROSS BIGINT, ' +
      'GEPACKT DECIMAL(63,20), GEZONT NUMERIC(63,0), EINFACH REAL, DOPPELT DOUBLE, ROH BINARY(3), TAG DATE, ZEIT TIME)',
  );
  await admin.command(
    'CHGJRNOBJ OBJ((WORLD/KUNDEN *FILE) (WORLD/TOKUISAKI *FILE) (WORLD/UNIVERSE *FILE) (WORLD/SCHALTER *FILE) (WORLD/ZAHLEN *FILE)) ATR(*IMAGES) IMAGES(*BOTH)',
  );
}

const kunde = (
  admin: IbmiConnection,
  id: number,
  name: string,
  ort: string | null,
  betrag: string,
  rabatt: string,
  saldo: string,
) =>
  admin.query('INSERT INTO WORLD.KUNDEN VALUES (?, ?, ?, ?, ?, ?)', [id, name, ort, betrag, rabatt, saldo]);
const tokuisaki = (
  admin: IbmiConnection,
  id: number,
  name: string,
  kana: string,
  jusho: string,
  memo: string,
) => admin.query('INSERT INTO WORLD.TOKUISAKI VALUES (?, ?, ?, ?, ?)', [id, name, kana, jusho, memo]);
const universe = (
  admin: IbmiConnection,
  id: number,
  title: string,
  body: string,
  utf8: string,
  raw: Buffer,
  at: string,
) =>
  admin.query('INSERT INTO WORLD.UNIVERSE VALUES (?, ?, ?, ?, ?, ?, ?, ?)', [
    id,
    title,
    body,
    utf8,
    raw,
    Buffer.from([0x00, 0xff, 0x0e, 0x0f]),
    at,
    at,
  ]);

// The widest values each type holds: 63 packed and zoned digits, the ends of SMALLINT and BIGINT.
export const PACKED = '-1234567890123456789012345678901234567890123.45678901234567890123';
export const ZONED = '9'.repeat(63);
const zahl = (admin: IbmiConnection, id: number) =>
  admin.query('INSERT INTO WORLD.ZAHLEN VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)', [
    id,
    -32768,
    9223372036854775807n,
    PACKED,
    ZONED,
    1.5,
    -2.25e300,
    Buffer.from([0x00, 0xff, 0x10]),
    '0001-01-01',
    '23:59:59',
  ]);

/** Before the copy and after it: the second half travels as journal entries. */
export async function writeWorld(admin: IbmiConnection, half: 'copied' | 'journaled'): Promise<void> {
  const base = half === 'copied' ? 0 : 10;
  await kunde(
    admin,
    base + 1,
    'Müller Straße €',
    'Köln',
    '12345678901234567890123456789.01',
    '-7.50',
    '1234567890123456789012345678.901234',
  );
  await kunde(admin, base + 2, 'Ærøskøbing ÄÖÜäöüß', null, '-0.01', 'NaN', '0.000001');
  await tokuisaki(admin, base + 1, '東京都千代田区 abc', 'ﾄｳｷｮｳ', '千代田区丸の内', '二丁目　７番');
  await tokuisaki(admin, base + 2, '大阪 123', 'ｵｵｻｶ', '北区', '');
  await universe(
    admin,
    base + 1,
    'Grüße',
    '東京 😀 𠀋',
    'ünïcödé 😀',
    Buffer.from([1, 2, 0, 255]),
    '2026-11-24-10.11.12.123456789012',
  );
  await admin.query(
    'INSERT INTO WORLD.SCHALTER (ID, AKTIV, GEPRUEFT) VALUES (?, TRUE, ?), (?, FALSE, NULL)',
    [base + 1, 'no', base + 2],
  );
  await zahl(admin, base + 1);
  await admin.query('INSERT INTO WORLD.ZAHLEN (ID) VALUES (?)', [base + 2]);
  if (half === 'journaled') {
    await admin.query(
      "UPDATE WORLD.ZAHLEN SET GEPACKT = '0.00000000000000000001', KLEIN = 32767 WHERE ID = 1",
    );
    await admin.query("UPDATE WORLD.SCHALTER SET AKTIV = FALSE, GEPRUEFT = 'yes' WHERE ID = 1");
    await admin.query("UPDATE WORLD.KUNDEN SET ORT = 'Zürich €' WHERE ID = 2");
    await admin.query("UPDATE WORLD.TOKUISAKI SET MEMO = '変更済み' WHERE ID = 1");
    await admin.query('DELETE FROM WORLD.UNIVERSE WHERE ID = 1');
  }
}
