// Sandbox mode's panel: the simulated servers' connection details and the workload's rate.
import { useStore } from './index';

const said = (error: unknown) => (error instanceof Error ? error.message : 'The sandbox did not answer.');

export async function loadSandboxDetails(): Promise<void> {
  const { api } = useStore.getState();
  if (!api) return;
  try {
    useStore.setState({ sandbox: await api.getSandboxDetails({}), sandboxError: undefined });
  } catch (error) {
    useStore.setState({ sandboxError: said(error) });
  }
}

export async function setWorkload(changesPerSecond: number): Promise<void> {
  const { api } = useStore.getState();
  if (!api) return;
  // The list shows the rate chosen at once (a keyboard's next arrow starts from it), not after the answer.
  useStore.setState((s) => ({
    sandbox: s.sandbox ? { ...s.sandbox, workload: { ...s.sandbox.workload, changesPerSecond } } : s.sandbox,
  }));
  try {
    const workload = await api.setSandboxWorkload({ changesPerSecond });
    useStore.setState((s) => ({
      sandbox: s.sandbox ? { ...s.sandbox, workload } : s.sandbox,
      sandboxError: undefined,
    }));
  } catch (error) {
    useStore.setState({ sandboxError: said(error) });
    // Refused: the list goes back to the rate the sandbox runs.
    void loadSandboxDetails();
  }
}
