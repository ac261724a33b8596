// Before a pipeline starts, the DBA sees what Start will do: the checks are run (they only read), and
// the writes the agent itself makes at Start (the SYNC schema or sync library when absent) and any
// failed check are said in the confirmation, before anything happens at the source.
import { useStore } from './index';
import { address, controlAgent, failure, patch, stillOpen } from './pipelinePage';
import { sameAddress } from './answerOrder';

/** Reads what Start would do, for the confirmation. */
export async function prepareStart(): Promise<void> {
  const { api } = useStore.getState();
  const at = address();
  if (!api || !at) return;
  useStore.setState({ startPlan: 'reading' });
  patch({ error: undefined, notice: undefined });
  try {
    const [answer, entities] = await Promise.all([
      api.testEngineAgent(at),
      api.getEngineEntities({ profileId: at.profileId, pipelineId: at.pipelineId }),
    ]);
    if (!stillOpen(at)) return useStore.setState({ startPlan: undefined });
    useStore.setState({
      startPlan: {
        at,
        atStart: answer.checks.flatMap((c) => (c.atStart ? [c.atStart] : [])),
        failed: answer.checks.filter((c) => c.status === 'failed'),
        tables: entities.entities.length,
      },
    });
  } catch (error) {
    useStore.setState({ startPlan: undefined });
    patch({ error: failure(at, error) });
  }
}

export function cancelStart(): void {
  useStore.setState({ startPlan: undefined });
}

/** Starts the pipeline the plan was read for, once the DBA said yes. */
export async function confirmStart(): Promise<void> {
  const plan = useStore.getState().startPlan;
  useStore.setState({ startPlan: undefined });
  if (plan && plan !== 'reading' && sameAddress(address(), plan.at)) await controlAgent('start');
}
