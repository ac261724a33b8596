import { useStore } from './index';

const message = (error: unknown) => (error instanceof Error ? error.message : 'The request failed.');

export async function loadEngines(): Promise<void> {
  const { api } = useStore.getState();
  if (!api) return;
  try {
    const [localEngine, profiles] = await Promise.all([api.getLocalEngine({}), api.listEngineProfiles({})]);
    const revealed = localEngine.tokenToShow
      ? { token: localEngine.tokenToShow, why: 'This is the admin token of the local engine.' }
      : undefined;
    useStore.setState((s) => ({
      localEngine,
      profiles,
      revealedToken: revealed ?? s.revealedToken,
      enginesError: undefined,
    }));
  } catch (error) {
    useStore.setState({ enginesError: message(error) });
  }
}

export async function checkEngine(id: string): Promise<void> {
  const { api } = useStore.getState();
  if (!api) return;
  useStore.setState((s) => ({ engineChecks: { ...s.engineChecks, [id]: 'checking' } }));
  try {
    const result = await api.checkEngine({ id });
    useStore.setState((s) => ({ engineChecks: { ...s.engineChecks, [id]: result } }));
  } catch (error) {
    useStore.setState((s) => ({
      engineChecks: { ...s.engineChecks, [id]: { ok: false, message: message(error) } },
    }));
  }
}

/** Saves a profile; answers the error message, or undefined when saved. */
export async function saveProfile(input: {
  id: string;
  name: string;
  baseUrl: string;
  token?: string;
  forgetCertificate?: boolean;
}): Promise<string | undefined> {
  const { api } = useStore.getState();
  if (!api) return 'Not connected.';
  try {
    await api.saveEngineProfile(input);
    useStore.setState({ profiles: await api.listEngineProfiles({}) });
    return undefined;
  } catch (error) {
    return message(error);
  }
}

/** Forgets an engine's pinned certificate: the next connection pins the one it presents then. */
export async function forgetCertificate(p: { id: string; name: string; baseUrl: string }): Promise<void> {
  const problem = await saveProfile({ id: p.id, name: p.name, baseUrl: p.baseUrl, forgetCertificate: true });
  if (problem) useStore.setState({ enginesError: problem });
}

export async function deleteProfile(id: string): Promise<void> {
  const { api } = useStore.getState();
  if (!api) return;
  try {
    await api.deleteEngineProfile({ id });
    useStore.setState({ profiles: await api.listEngineProfiles({}) });
  } catch (error) {
    useStore.setState({ enginesError: message(error) });
  }
}

export async function rotateLocalToken(): Promise<void> {
  const { api } = useStore.getState();
  if (!api) return;
  try {
    const { token } = await api.rotateLocalEngineToken({});
    useStore.setState({
      revealedToken: {
        token,
        why: 'The local engine has a new admin token; the previous one no longer works.',
      },
    });
  } catch (error) {
    useStore.setState({ enginesError: message(error) });
  }
}

export function dismissToken(): void {
  useStore.setState({ revealedToken: undefined });
}
