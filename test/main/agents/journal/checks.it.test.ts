// The journal agent's checks on the simulated IBM i, each seen passing and failing: the profile
// against the suggested one, the eight permissions (and the GRTOBJAUT commands that fix them, run),
// journaling with *BOTH (and its fix, run), the detected journal, the sync library, row identification.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CheckResult, Entity } from '../../../../shared/controlApi';
import type { JournalHostCredentials } from '../../../../shared/agents/journal';
import type { IbmiConnection } from '../../../../lib/ibmi/connection';
import { journalChecks } from '../../../../main/agents/journal/checks';
import { openJournalSource } from '../../../../main/agents/journal/source';
import { agentsRuntime } from '../../../../main/engine/agentRuntime';
import { SyncLibrary } from '../../../../main/agents/journal/syncLibrary';
import type { SandboxIbmi } from '../../../../simulators/ibmi';
import { SEED_AGENT, SEED_READER } from '../../../../simulators/ibmi/seed';
import { suggestedProfile } from '../../../../simulators/ibmi/system/users';
import { journalConfiguration, journalEntity, sandboxIbmiCredentials } from '../../../helpers/journal';
import { seededIbmi } from '../../../helpers/ibmi';

let sandbox: SandboxIbmi;
let admin: IbmiConnection;
beforeEach(async () => ({ sandbox, admin } = await seededIbmi()));
afterEach(() => sandbox.close());

const CUSTOMER = journalEntity({ schema: 'SHOP', table: 'CUSTOMER' });
const ITEMS = journalEntity(
  { schema: 'LEGACY', table: 'ITEMS' },
  { rowIdentification: { kind: 'logicalKey', columns: ['ITEMNO'] } },
);

async function checks(entities: Entity[], user = SEED_AGENT, syncLibrary = 'SYNC'): Promise<CheckResult[]> {
  const credentials = sandboxIbmiCredentials(sandbox, {
    username: user.user,
    password: user.password,
    syncLibrary,
  });
  const c = await sandbox.connect({ user: user.user, password: user.password });
  try {
    return await journalChecks(c, credentials, new SyncLibrary(c, credentials, 'p1/src'), entities);
  } finally {
    await c.close();
  }
}
/** A journal agent as the engine resolves it, on the sandbox unless told otherwise. */
const agentWith = (over: Partial<JournalHostCredentials>) => ({
  pipelineId: 'p1',
  id: 'src',
  type: 'journal' as const,
  role: 'source' as const,
  hostCredentials: { ...sandboxIbmiCredentials(sandbox), ...over },
  configuration: {},
});
const byId = (results: CheckResult[], id: string) => {
  const found = results.find((r) => r.id === id);
  if (!found) throw new Error(`No check ${id} in ${results.map((r) => r.id).join(', ')}`);
  return found;
};
const statuses = (results: CheckResult[]) => Object.fromEntries(results.map((r) => [r.id, r.status]));

describe('checks that pass', () => {
  it('the suggested profile, every permission, *BOTH journaling, the detected journals, a free sync library', async () => {
    const results = await checks([CUSTOMER, ITEMS]);
    expect(statuses(results)).toEqual({
      'user-profile': 'passed',
      'permission-read-source': 'passed',
      'permission-create-library': 'passed',
      'permission-create-files': 'passed',
      'permission-sync-files': 'passed',
      'permission-chgjrn': 'passed',
      'permission-dspjrn': 'passed',
      'permission-chgpf': 'passed',
      'permission-dltf': 'passed',
      journaling: 'passed',
      'journal-detected': 'passed',
      'journal-attributes': 'passed',
      'sync-library': 'passed',
      'row-identification': 'passed',
      'column-types': 'passed',
      members: 'passed',
    });
    expect(byId(results, 'journal-detected').message).toBe(
      'SHOP/CUSTOMER: SHOP/QSQJRN (detected)\nLEGACY/ITEMS: LEGACY/JRN (detected)',
    );
    expect(byId(results, 'sync-library').message).toContain('SYNC does not exist yet');
  });

  it('asks the same number of queries for one file as for many in several libraries', async () => {
    const count = async (entities: Entity[]) => {
      const credentials = sandboxIbmiCredentials(sandbox);
      const c = await sandbox.connect({ ...SEED_AGENT });
      let queries = 0;
      const counting: IbmiConnection = {
        query: (sql, params) => (queries++, c.query(sql, params)),
        command: (cl) => (queries++, c.command(cl)),
        transaction: (work) => c.transaction(work),
        close: () => c.close(),
      };
      await journalChecks(counting, credentials, new SyncLibrary(counting, credentials, 'p1/src'), entities);
      await c.close();
      return queries;
    };
    const orders = journalEntity({ schema: 'SHOP', table: 'ORDERS' });
    expect(await count([CUSTOMER])).toBe(await count([CUSTOMER, orders, ITEMS]));
  });
});

describe('checks that fail, with their remedies', () => {
  it('a file with several members is named with its members, each of which replicates', async () => {
    const notes = journalEntity({ schema: 'LEGACY', table: 'NOTES' }, { rowIdentification: { kind: 'rrn' } });
    const members = byId(await checks([notes]), 'members');
    expect(members.status).toBe('passed');
    expect(members.message).toBe(
      'LEGACY/NOTES has 2 members (NOTES, ARCHIVE): each replicates, its rows keyed by MEMBER first.',
    );
  });

  it('an entity naming a member the file does not have fails the members check, naming it', async () => {
    const notes = journalEntity(
      { schema: 'LEGACY', table: 'NOTES' },
      { rowIdentification: { kind: 'rrn' }, members: ['ARCHIVE', 'Y1999'] },
    );
    const members = byId(await checks([notes]), 'members');
    expect(members.status).toBe('failed');
    expect(members.message).toBe('LEGACY/NOTES has no member Y1999 (it has NOTES, ARCHIVE).');
  });

  it('minimised entry data (MINENTDTA) fails with the CHGJRN that turns it off; receivers the system deletes warn', async () => {
    await admin.command('CHGJRN JRN(SHOP/QSQJRN) MINENTDTA(*FILE)');
    await admin.command('CHGJRN JRN(LEGACY/JRN) MNGRCV(*SYSTEM) DLTRCV(*YES)');
    const attributes = byId(await checks([CUSTOMER, ITEMS]), 'journal-attributes');
    expect(attributes.status).toBe('failed');
    expect(attributes.message).toContain('SHOP/QSQJRN minimises entry data for files (MINENTDTA FILE)');
    expect(attributes.message).toContain(
      'LEGACY/JRN has system-managed receivers that the system deletes once detached (MNGRCV(*SYSTEM) DLTRCV(*YES))',
    );
    expect(attributes.fix).toBe('CHGJRN JRN(SHOP/QSQJRN) MINENTDTA(*NONE)');
    await admin.command(attributes.fix ?? '');
    await admin.command('CHGJRN JRN(LEGACY/JRN) DLTRCV(*NO)');
    expect(byId(await checks([CUSTOMER, ITEMS]), 'journal-attributes').status).toBe('passed');
  });

  it('a profile unlike the suggested one: expected against found, property by property', async () => {
    const results = await checks([CUSTOMER], SEED_READER);
    const profile = byId(results, 'user-profile');
    expect(profile.status).toBe('failed');
    expect(profile.message).toContain('group profile: expected QPGMR, found *NONE');
    expect(profile.message).toContain('password expiration interval: expected *NOMAX, found 90 days');
    expect(profile.message).toContain('limit capabilities: expected *NO, found *YES');
    expect(profile.message).toContain('user class: expected *USER, found *USER');
    expect(profile.fix).toBe(
      'CHGUSRPRF USRPRF(CDCREAD) USRCLS(*USER) GRPPRF(QPGMR) STATUS(*ENABLED) PWDEXPITV(*NOMAX) SPCAUT(*NONE) LMTCPB(*NO)',
    );
  });

  it('a QPGMR profile that differs only in what the spec suggests is a warning, not a failure', async () => {
    const user = { user: 'CDCLIMIT', password: 'Sandbox-3' };
    await sandbox.close();
    ({ sandbox, admin } = await seededIbmi([
      { ...suggestedProfile(user.user, user.password), limitCapabilities: '*PARTIAL' },
    ]));
    const profile = byId(await checks([CUSTOMER], user), 'user-profile');
    expect(profile.status).toBe('warning');
    expect(profile.message).toContain('limit capabilities: expected *NO, found *PARTIAL');
  });

  it('each permission missing is named with the GRTOBJAUT that grants it; granted, the checks pass', async () => {
    await admin.query('CREATE SCHEMA SYNC');
    await admin.query('CREATE TABLE SYNC.JOURNALSCP (AGENT VARCHAR(128) NOT NULL)');
    for (const [obj, type, aut] of [
      ['SYNC', '*LIB', '*USE'],
      ['SYNC/JOURNALSCP', '*FILE', '*USE'],
      ['SYNC/QSQJRN', '*JRN', '*USE'],
      ['SHOP/CUSTOMER', '*FILE', '*EXCLUDE'],
      ['QSYS/DSPJRN', '*CMD', '*EXCLUDE'],
      ['QSYS/CHGJRN', '*CMD', '*EXCLUDE'],
      ['QSYS/CHGPF', '*CMD', '*EXCLUDE'],
      ['QSYS/DLTF', '*CMD', '*EXCLUDE'],
    ])
      await admin.command(`GRTOBJAUT OBJ(${obj}) OBJTYPE(${type}) USER(CDCAGENT) AUT(${aut})`);
    const results = await checks([CUSTOMER]);
    const failed = results.filter((r) => r.id.startsWith('permission-') && r.status === 'failed');
    expect(failed.map((r) => r.id)).toEqual([
      'permission-read-source',
      'permission-create-files',
      'permission-sync-files',
      'permission-chgjrn',
      'permission-dspjrn',
      'permission-chgpf',
      'permission-dltf',
    ]);
    expect(byId(results, 'permission-create-library').message).toContain('SYNC exists already');
    expect(byId(results, 'permission-read-source').message).toContain(
      'SHOP/CUSTOMER (*FILE) lacks *OBJOPR *READ',
    );
    expect(byId(results, 'permission-create-files').fix).toBe(
      'GRTOBJAUT OBJ(SYNC) OBJTYPE(*LIB) USER(CDCAGENT) AUT(*CHANGE)',
    );
    expect(byId(results, 'permission-chgjrn').fix).toBe(
      'GRTOBJAUT OBJ(QSYS/CHGJRN) OBJTYPE(*CMD) USER(CDCAGENT) AUT(*USE)\n' +
        'GRTOBJAUT OBJ(SYNC/QSQJRN) OBJTYPE(*JRN) USER(CDCAGENT) AUT(*OBJOPR *OBJMGT)',
    );
    // The commands are exact: a security officer runs them and every permission check passes.
    for (const r of failed) for (const command of (r.fix ?? '').split('\n')) await admin.command(command);
    const after = await checks([CUSTOMER]);
    expect(after.filter((r) => r.id.startsWith('permission-') && r.status !== 'passed')).toEqual([]);
  });

  it('no authority to CRTLIB: the sync library cannot be created', async () => {
    const results = await checks([CUSTOMER], SEED_READER);
    const create = byId(results, 'permission-create-library');
    expect(create.status).toBe('failed');
    expect(create.fix).toBe('GRTOBJAUT OBJ(QSYS/CRTLIB) OBJTYPE(*CMD) USER(CDCREAD) AUT(*USE)');
    // CDCREAD is excluded from LEGACY: its files cannot be read.
    const read = byId(await checks([ITEMS], SEED_READER), 'permission-read-source');
    expect(read.status).toBe('failed');
    expect(read.message).toContain('LEGACY (*LIB) lacks *EXECUTE');
  });

  it('a file journaled with *AFTER images or not at all: the exact CHGJRNOBJ / STRJRNPF, which then passes', async () => {
    await admin.command('CHGJRNOBJ OBJ((LEGACY/ITEMS *FILE)) ATR(*IMAGES) IMAGES(*AFTER)');
    await admin.command('ENDJRNPF FILE(SHOP/CUSTOMER)');
    const journaling = byId(await checks([CUSTOMER, ITEMS]), 'journaling');
    expect(journaling.status).toBe('failed');
    expect(journaling.message).toBe(
      'SHOP/CUSTOMER is not journaled.\nLEGACY/ITEMS is journaled with IMAGES(*AFTER), not *BOTH.',
    );
    expect(journaling.fix).toBe(
      'STRJRNPF FILE(SHOP/CUSTOMER) JRN(SHOP/QSQJRN) IMAGES(*BOTH)\n' +
        'CHGJRNOBJ OBJ((LEGACY/ITEMS *FILE)) ATR(*IMAGES) IMAGES(*BOTH)',
    );
    for (const command of (journaling.fix ?? '').split('\n')) await admin.command(command);
    expect(byId(await checks([CUSTOMER, ITEMS]), 'journaling').status).toBe('passed');
  });

  it('a journal set on the entity that is not the file’s is said so', async () => {
    const results = await checks([{ ...CUSTOMER, journal: { library: 'LEGACY', name: 'JRN' } }]);
    expect(byId(results, 'journaling').message).toBe(
      'SHOP/CUSTOMER is journaled to SHOP/QSQJRN, not to LEGACY/JRN as the entity says.',
    );
  });

  it('another agent keeps its checkpoints in the sync library: refused, whatever engine it runs on', async () => {
    const credentials = sandboxIbmiCredentials(sandbox);
    const other = await openJournalSource({
      credentials,
      configuration: journalConfiguration(),
      pipelineId: 'elsewhere',
      agentId: 'src',
      entities: [CUSTOMER],
    });
    const { position } = await other.snapshot(CUSTOMER.source, async () => undefined);
    await other.saveCheckpoint({ 'SHOP.CUSTOMER': position });
    await other.close();
    const library = byId(await checks([CUSTOMER]), 'sync-library');
    expect(library).toMatchObject({
      status: 'failed',
      remedy: 'Set another "Sync library" in the host credentials.',
    });
    expect(library.message).toContain('SYNC already keeps the checkpoints of elsewhere/src');
    expect(byId(await checks([CUSTOMER], SEED_AGENT, 'SYNC2'), 'sync-library').status).toBe('passed');
  });

  it('row identification: no primary key fails, an unknown logical key column fails, RRN is a warning', async () => {
    const notes = journalEntity({ schema: 'LEGACY', table: 'NOTES' });
    expect(byId(await checks([notes]), 'row-identification')).toMatchObject({
      status: 'failed',
      message: 'LEGACY/NOTES has no primary key: choose a logical key (any columns, all allowed) or RRN.',
    });
    const unknown = {
      ...notes,
      rowIdentification: { kind: 'logicalKey' as const, columns: ['NOTE', 'AUTHOR'] },
    };
    expect(byId(await checks([unknown]), 'row-identification').message).toBe(
      'The logical key of LEGACY/NOTES names unknown columns: AUTHOR.',
    );
    const rrn = { ...notes, rowIdentification: { kind: 'rrn' as const } };
    expect(byId(await checks([rrn]), 'row-identification')).toMatchObject({
      status: 'warning',
      message: expect.stringContaining('RGZPFM') as unknown,
    });
  });

  it('a wrong password fails the connection check in plain words, without the password', async () => {
    const [connection, ...rest] = await agentsRuntime().check(agentWith({ password: 'Wrong-Secret-9' }), [
      CUSTOMER,
    ]);
    expect(rest).toEqual([]);
    expect(connection).toMatchObject({ id: 'connection', status: 'failed' });
    expect(connection?.message).toBe('IBM i refused the password of CDCAGENT (CPF22E2).');
    expect(JSON.stringify(connection)).not.toContain('Wrong-Secret-9');
  });

  it('a host that is no sandbox goes through ODBC: without IBM’s driver the check says what to install', async () => {
    const agent = agentWith({ host: 'ibmi01.example.com', password: 'Odbc-Secret-7' });
    const [connection] = await agentsRuntime().check(agent, [CUSTOMER]);
    expect(connection).toMatchObject({ id: 'connection', status: 'failed' });
    expect(`${connection?.message} ${connection?.remedy}`).toMatch(/ODBC|odbc/);
    expect(connection?.remedy).toContain('IBM i Access');
    expect(JSON.stringify(connection)).not.toContain('Odbc-Secret-7');
  });
});
