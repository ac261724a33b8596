// The sync library's journal has its old receivers deleted by the agent (CHGJRN … DLTRCV(*YES)): a
// source file journaled there is refused by the checks and by the run, before any receiver goes.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { IbmiConnection } from '../../../../lib/ibmi/connection';
import { openJournalSource } from '../../../../main/agents/journal/source';
import { startSandboxIbmi, type SandboxIbmi } from '../../../../simulators/ibmi';
import { SEED_ADMIN } from '../../../../simulators/ibmi/seed';
import { journalConfiguration, journalEntity, sandboxIbmiCredentials } from '../../../helpers/journal';

let sandbox: SandboxIbmi;
let admin: IbmiConnection;
const entity = journalEntity({ schema: 'SRCLIB', table: 'ITEMS' });

beforeAll(async () => {
  sandbox = await startSandboxIbmi({ seed: true });
  admin = await sandbox.connect({ ...SEED_ADMIN });
  await admin.query('CREATE SCHEMA SYNCX');
  await admin.query('CREATE SCHEMA SRCLIB');
  await admin.query('CREATE TABLE SRCLIB.ITEMS (ID INTEGER NOT NULL PRIMARY KEY, NOTE VARCHAR(10))');
  await admin.command('ENDJRNPF FILE(SRCLIB/ITEMS)');
  await admin.command('STRJRNPF FILE(SRCLIB/ITEMS) JRN(SYNCX/QSQJRN) IMAGES(*BOTH)');
  await admin.query("INSERT INTO SRCLIB.ITEMS VALUES (1, 'one')");
});
afterAll(async () => {
  await admin?.close();
  await sandbox?.close();
});

const receivers = async () =>
  (
    await admin.query(
      "SELECT JOURNAL_RECEIVER_NAME FROM QSYS2.JOURNAL_RECEIVER_INFO WHERE JOURNAL_RECEIVER_LIBRARY = 'SYNCX'",
    )
  ).length;

it('a source file journaled in the sync library fails the sync-library check and the run', async () => {
  const before = await receivers();
  const agent = await openJournalSource({
    credentials: sandboxIbmiCredentials(sandbox, { syncLibrary: 'SYNCX' }),
    configuration: journalConfiguration(),
    pipelineId: 'p',
    agentId: 'a',
    entities: [entity],
  });
  try {
    const check = (await agent.check([entity])).find((c) => c.id === 'sync-library');
    expect(check?.status).toBe('failed');
    expect(check?.message).toMatch(/SYNCX holds the journal of SRCLIB\.ITEMS \(SYNCX\/QSQJRN\)/);
    expect(check?.remedy).toMatch(/another "Sync library"/);
    await expect(agent.readChanges([entity.source], { 'SRCLIB.ITEMS': '' })).rejects.toThrow(
      /SRCLIB\.ITEMS is journaled to SYNCX\/QSQJRN, in the sync library SYNCX/,
    );
    await expect(agent.saveCheckpoint({ 'SRCLIB.ITEMS': '' })).rejects.toThrow(/in the sync library SYNCX/);
  } finally {
    await agent.close();
  }
  expect(await receivers()).toBe(before);
});
