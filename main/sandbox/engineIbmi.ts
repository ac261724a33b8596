// The simulated IBM i for `npm run engine -- --sandbox-ibmi`: the app reaches the simulators only
// through main/sandbox/, loaded on demand, so an engine without the flag never loads them.
import { startSandboxIbmi, type SandboxIbmi } from '../../simulators/ibmi';
import { SEED_AGENT } from '../../simulators/ibmi/seed';

export async function startEngineIbmi(host: string): Promise<{ ibmi: SandboxIbmi; signOn: string }> {
  const ibmi = await startSandboxIbmi({ seed: true, host });
  const signOn =
    `Simulated IBM i: host "${ibmi.host}", user ${SEED_AGENT.user} / ${SEED_AGENT.password}, ` +
    'libraries SHOP and LEGACY (simulators/ibmi/CONFORMANCE.md).\n';
  return { ibmi, signOn };
}
