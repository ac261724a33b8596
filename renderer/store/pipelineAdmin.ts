// Changing or removing what an engine holds, from the Pipelines screen: an agent's settings through
// the wizard (filled in, secrets kept unless typed), and a pipeline with everything that goes with it.
import type { AgentType } from '../../shared/agents';
import { showScreen, useStore } from './index';
import { homeAgentOf } from '../../shared/pipelineWords';
import { message, patch, pickCheckerAgent, pickCheckerEngine, pipelineIn, selectedIn } from './pipelinePage';
import { openWizardToEdit } from './wizard';

/** The selected agent as its engine holds it, with its pipeline; undefined when none is selected. */
function selectedAgent() {
  const { pipelinePage } = useStore.getState();
  const chosen = selectedIn(pipelinePage);
  return pipelinePage.profileId && chosen ? { profileId: pipelinePage.profileId, ...chosen } : undefined;
}

/** Opens the wizard over the selected agent's settings, to change and apply them to the same ids. */
export function editSelectedAgent(): void {
  const chosen = selectedAgent();
  if (!chosen) return;
  const { profileId, pipeline, agent } = chosen;
  openWizardToEdit(agent.type as AgentType, agent, {
    profileId,
    pipelineId: pipeline.id,
    agentId: agent.id,
    state: agent.state,
  });
  showScreen('agents');
}

/** Deletes the selected pipeline (the DBA confirmed, told what goes with it); the engine's refusal is shown. */
export async function deleteSelectedPipeline(): Promise<void> {
  const { api, pipelinePage } = useStore.getState();
  // A pipeline left with no agent is deleted the same way.
  const pipeline = pipelineIn(pipelinePage);
  const { profileId } = pipelinePage;
  if (!api || !pipeline || !profileId) return;
  patch({ busy: 'acting', error: undefined, notice: undefined });
  try {
    await api.deleteEnginePipeline({ profileId, pipelineId: pipeline.id });
    await pickCheckerEngine(profileId);
    patch({ notice: `Pipeline ${pipeline.name} deleted, with its agents, entities and events.` });
  } catch (error) {
    patch({ busy: undefined, error: message(error) });
  }
}

/** Removes the selected agent alone (the DBA confirmed, told what goes); its pipeline and the others stay. */
export async function removeSelectedAgent(): Promise<void> {
  const { api } = useStore.getState();
  const chosen = selectedAgent();
  if (!api || !chosen) return;
  const { profileId, pipeline, agent } = chosen;
  patch({ busy: 'acting', error: undefined, notice: undefined });
  try {
    await api.deleteEngineAgent({ profileId, pipelineId: pipeline.id, agentId: agent.id });
    await pickCheckerEngine(profileId);
    // The pipeline stays open, at the agent left to it (or with none).
    const left = useStore.getState().pipelinePage.agents?.find((p) => p.id === pipeline.id);
    pickCheckerAgent(`${pipeline.id}/${(left && homeAgentOf(left)?.id) ?? ''}`);
    patch({
      notice: `Agent ${agent.id} removed from pipeline ${pipeline.name}; its other agents and its tables stay.`,
    });
  } catch (error) {
    patch({ busy: undefined, error: message(error) });
  }
}
