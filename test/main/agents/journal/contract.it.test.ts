// The journal agent through the source-agent contract, on the simulated IBM i.
import { afterAll } from 'vitest';
import { startSandboxIbmi, type SandboxIbmi } from '../../../../simulators/ibmi';
import { SEED_ADMIN } from '../../../../simulators/ibmi/seed';
import { sourceAgentContract } from '../contract/sourceAgent';
import { journalHarness, sandboxIbmiCredentials } from '../../../helpers/journal';

let sandbox: SandboxIbmi | undefined;
afterAll(async () => {
  await sandbox?.close();
});

sourceAgentContract('journal on the simulated IBM i', async () => {
  sandbox = await startSandboxIbmi({ seed: true });
  const admin = await sandbox.connect({ ...SEED_ADMIN });
  const harness = journalHarness(admin, sandboxIbmiCredentials(sandbox), { schema: 'CONTRACT' });
  await harness.prepare();
  return harness;
});
