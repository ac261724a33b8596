// Every engine's pipelines as main pushes them, the user's alert settings, and what a pushed message
// changes on screen: the home list, the open pipeline's state, gauge, events and charts. Nothing here
// polls: the picture is read whole once when the push channel opens (and after it reopens), then kept
// by the messages.
import { openedBy, type AlertSettings, type FleetEngine, type PushMessage } from '../../shared/push';
import type { PushSource } from '../platform/push';
import { applyToOpenPipeline } from './live';
import { showScreen, useStore } from './index';
import { openPipeline, refreshRun, withAgent } from './pipelinePage';

const setEngines = (update: (engines: FleetEngine[]) => FleetEngine[]) =>
  useStore.setState((s) => ({ fleet: { ...s.fleet, engines: update(s.fleet.engines) } }));

async function readFleet(): Promise<void> {
  const { api } = useStore.getState();
  if (!api) return;
  try {
    const engines = await api.getFleet({});
    setEngines(() => engines);
  } catch {
    // The next push (or reopening) brings the picture; the home screen says the channel state.
  }
}

/** Web mode: a browser notification for an alert, when the user allowed them; a click opens the pipeline. */
function notifyInBrowser(message: Extract<PushMessage, { type: 'alert' }>): void {
  if (useStore.getState().appInfo?.mode !== 'web') return;
  if (typeof Notification === 'undefined' || Notification.permission !== 'granted') return;
  const { alert } = message;
  const notification = new Notification(alert.title, {
    body: alert.body,
    tag: `${alert.profileId}/${alert.pipelineId}/${alert.kind}`,
  });
  notification.onclick = () => {
    window.focus();
    applyPush(openedBy(alert));
    notification.close();
  };
}

export function applyPush(message: PushMessage): void {
  switch (message.type) {
    case 'engine': {
      // The open pipeline's engine live again: what it pushed while it was not is read once.
      const before = useStore.getState().fleet.engines.find((e) => e.profileId === message.engine.profileId);
      if (
        before &&
        before.connection !== 'live' &&
        message.engine.connection === 'live' &&
        useStore.getState().pipelinePage.profileId === message.engine.profileId
      )
        void refreshRun();
      setEngines((engines) =>
        engines.some((e) => e.profileId === message.engine.profileId)
          ? engines.map((e) => (e.profileId === message.engine.profileId ? message.engine : e))
          : [...engines, message.engine],
      );
      return;
    }
    case 'engine-removed':
      setEngines((engines) => engines.filter((e) => e.profileId !== message.profileId));
      return;
    case 'status':
      setEngines((engines) =>
        engines.map((e) =>
          e.profileId === message.profileId
            ? {
                ...e,
                pipelines: withAgent(e.pipelines, message.pipelineId, message.agentId, (a) => ({
                  ...a,
                  status: message.status,
                })),
              }
            : e,
        ),
      );
      applyToOpenPipeline(message);
      return;
    case 'event':
      applyToOpenPipeline(message);
      return;
    case 'alert':
      notifyInBrowser(message);
      return;
    case 'open-pipeline':
      void openPipeline(message);
      return;
    case 'open-engine':
      showScreen('home');
      return;
  }
}

/** Listens to main's pushes for the life of the window. */
export function startPush(source: PushSource | undefined): () => void {
  if (!source) return () => undefined;
  return source({
    message: applyPush,
    opened: () => {
      const reopened = useStore.getState().fleet.channel === 'closed';
      useStore.setState((s) => ({ fleet: { ...s.fleet, channel: 'open' } }));
      void readFleet();
      // Pushes were missed while the channel was down: the open pipeline is read once more.
      if (reopened) void refreshRun();
    },
    closed: () => useStore.setState((s) => ({ fleet: { ...s.fleet, channel: 'closed' } })),
  });
}

export async function loadAlertSettings(): Promise<void> {
  const { api } = useStore.getState();
  if (!api) return;
  try {
    useStore.setState({ alertSettings: await api.getAlertSettings({}), alertsError: undefined });
  } catch (error) {
    useStore.setState({
      alertsError: error instanceof Error ? error.message : 'The settings could not be read.',
    });
  }
}

export async function saveAlertSettings(settings: AlertSettings): Promise<boolean> {
  const { api } = useStore.getState();
  if (!api) return false;
  try {
    useStore.setState({ alertSettings: await api.saveAlertSettings(settings), alertsError: undefined });
    return true;
  } catch (error) {
    useStore.setState({
      alertsError: error instanceof Error ? error.message : 'The settings could not be saved.',
    });
    return false;
  }
}
