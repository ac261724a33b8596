// Engines: the app's own local engine (its token shown once) and profiles of other engines.
import { useState, type FormEvent } from 'react';
import { useStore } from '../store';
import { CONNECTION_WORDS } from '../../shared/push';
import {
  checkEngine,
  deleteProfile,
  dismissToken,
  forgetCertificate,
  rotateLocalToken,
  saveProfile,
} from '../store/engines';

export function EnginesScreen() {
  const local = useStore((s) => s.localEngine);
  const profiles = useStore((s) => s.profiles);
  const checks = useStore((s) => s.engineChecks);
  const revealed = useStore((s) => s.revealedToken);
  const error = useStore((s) => s.enginesError);
  return (
    <section aria-labelledby="engines-title" className="engines">
      <h2 id="engines-title">Engines</h2>
      {error && (
        <p role="alert" className="problem">
          {error}
        </p>
      )}
      {revealed && <TokenOnce token={revealed.token} why={revealed.why} />}
      <div className="card">
        <h3>Local engine</h3>
        {local?.running ? (
          <p>
            Running at <code>{local.url}</code>. It serves the control API on loopback only.
          </p>
        ) : (
          <p className="problem">Not running: {local?.reason ?? 'unknown'}</p>
        )}
        <button type="button" onClick={() => void rotateLocalToken()} disabled={!local?.running}>
          Rotate token
        </button>
      </div>
      <h3>Profiles</h3>
      <table className="profiles">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Address</th>
            <th scope="col">Token</th>
            <th scope="col">Status</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {profiles.map((p) => {
            const check = checks[p.id];
            return (
              <tr key={p.id}>
                <th scope="row">{p.name}</th>
                <td>
                  <code>{p.baseUrl}</code>
                  {p.certificateFingerprint && (
                    <div className="muted">
                      Certificate pinned: SHA-256{' '}
                      <code className="fingerprint">{p.certificateFingerprint}</code>
                    </div>
                  )}
                </td>
                <td>{p.tokenSet ? 'stored' : 'none'}</td>
                <td
                  aria-live="polite"
                  className={check && check !== 'checking' ? (check.ok ? 'ok' : 'problem') : undefined}
                >
                  {check === 'checking' ? 'Checking…' : (check?.message ?? '')}
                  <LiveState profileId={p.id} />
                </td>
                <td>
                  <div className="row-actions">
                    <button
                      type="button"
                      onClick={() => void checkEngine(p.id)}
                      aria-label={`Check ${p.name}`}
                    >
                      Check
                    </button>
                    {p.certificateFingerprint && (
                      <button
                        type="button"
                        onClick={() => void forgetCertificate(p)}
                        aria-label={`Forget the pinned certificate of ${p.name}`}
                      >
                        Forget certificate
                      </button>
                    )}
                    {!p.local && (
                      <button
                        type="button"
                        onClick={() => void deleteProfile(p.id)}
                        aria-label={`Delete ${p.name}`}
                      >
                        Delete
                      </button>
                    )}
                  </div>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <ProfileForm />
    </section>
  );
}

function TokenOnce({ token, why }: { token: string; why: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div role="status" className="card token-once">
      <p>
        <strong>{why}</strong> It is shown once: copy it now into your password manager. The engine keeps only
        its hash.
      </p>
      <code className="token">{token}</code>
      <div className="actions">
        <button
          type="button"
          onClick={() =>
            void navigator.clipboard.writeText(token).then(
              () => setCopied(true),
              () => setCopied(false),
            )
          }
        >
          {copied ? 'Copied' : 'Copy'}
        </button>
        <button type="button" className="primary" onClick={dismissToken}>
          I have stored it
        </button>
      </div>
    </div>
  );
}

function ProfileForm() {
  const [id, setId] = useState('');
  const [name, setName] = useState('');
  const [baseUrl, setBaseUrl] = useState('');
  const [token, setToken] = useState('');
  const [result, setResult] = useState<{ ok: boolean; text: string }>();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const problem = await saveProfile({ id, name, baseUrl, ...(token && { token }) });
    setResult(problem ? { ok: false, text: problem } : { ok: true, text: `Saved ${name}.` });
    if (!problem) setToken('');
  };
  return (
    <form aria-label="Engine profile" className="form-grid" onSubmit={(e) => void submit(e)} noValidate>
      <h3>Add or edit a profile</h3>
      <div className="field">
        <label htmlFor="profile-id">Profile id</label>
        <input
          id="profile-id"
          type="text"
          value={id}
          onChange={(e) => setId(e.target.value)}
          aria-describedby="profile-id-help"
        />
        <p id="profile-id-help" className="help">
          Lower-case letters, digits, - or _. Saving an existing id replaces that profile.
        </p>
      </div>
      <div className="field">
        <label htmlFor="profile-name">Name</label>
        <input id="profile-name" type="text" value={name} onChange={(e) => setName(e.target.value)} />
      </div>
      <div className="field">
        <label htmlFor="profile-url">Engine address</label>
        <input
          id="profile-url"
          type="text"
          value={baseUrl}
          placeholder="http://127.0.0.1:1717"
          onChange={(e) => setBaseUrl(e.target.value)}
          aria-describedby="profile-url-help"
        />
        <p id="profile-url-help" className="help">
          The control API's base URL, http:// or https://.
        </p>
      </div>
      <div className="field">
        <label htmlFor="profile-token">Token</label>
        <input
          id="profile-token"
          type="password"
          autoComplete="off"
          value={token}
          onChange={(e) => setToken(e.target.value)}
          aria-describedby="profile-token-help"
        />
        <p id="profile-token-help" className="help">
          The engine's admin token. Stored encrypted; leave empty to keep the stored one.
        </p>
      </div>
      {result && (
        <p role={result.ok ? 'status' : 'alert'} className={result.ok ? 'ok' : 'problem'}>
          {result.text}
        </p>
      )}
      <div className="actions">
        <button type="submit" className="primary">
          Save profile
        </button>
      </div>
    </form>
  );
}

/** How the app watches the engine now (live, read every 5 s, not answering), from main's pushes. */
function LiveState({ profileId }: { profileId: string }) {
  const engine = useStore((s) => s.fleet.engines.find((e) => e.profileId === profileId));
  if (!engine) return null;
  return (
    <div className={engine.connection === 'unreachable' ? 'problem' : 'muted'}>
      Watched: {CONNECTION_WORDS[engine.connection]}
      {engine.problem && ` — ${engine.problem}`}
    </div>
  );
}
