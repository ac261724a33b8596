// When the app tells the user: a pipeline that fails or stops, a lag or backlog over a threshold (empty:
// never), an engine that stops answering. Desktop notifications come from main; in a browser this tab
// shows them once allowed.
import { useEffect, useState } from 'react';
import { alertSettingsSchema, ENGINE_SILENCE_SECONDS, type AlertSettings } from '../../shared/push';
import { useStore } from '../store';
import { loadAlertSettings, saveAlertSettings } from '../store/fleet';

type Permission = NotificationPermission | 'unsupported';
const permissionNow = (): Permission =>
  typeof Notification === 'undefined' ? 'unsupported' : Notification.permission;

export function AlertSettingsForm() {
  const settings = useStore((s) => s.alertSettings);
  useEffect(() => {
    void loadAlertSettings();
  }, []);
  const [saved, setSaved] = useState(false);
  // The form starts from the settings as read (and again after each save).
  return settings ? (
    <SettingsForm key={JSON.stringify(settings)} settings={settings} saved={saved} setSaved={setSaved} />
  ) : null;
}

function SettingsForm({
  settings,
  saved,
  setSaved,
}: {
  settings: AlertSettings;
  saved: boolean;
  setSaved: (saved: boolean) => void;
}) {
  const error = useStore((s) => s.alertsError);
  const mode = useStore((s) => s.appInfo?.mode);
  const [draft, setDraft] = useState({
    failed: settings.failed,
    stopped: settings.stopped,
    suspended: settings.suspended,
    atRisk: settings.atRisk,
    unreachable: settings.unreachable,
    lag: settings.lagSeconds === null ? '' : String(settings.lagSeconds),
    backlog: settings.backlogRows === null ? '' : String(settings.backlogRows),
  });
  const [problem, setProblem] = useState<string | null>(null);
  const [permission, setPermission] = useState<Permission>(permissionNow);

  const save = async () => {
    setSaved(false);
    const parsed = alertSettingsSchema.safeParse({
      failed: draft.failed,
      stopped: draft.stopped,
      suspended: draft.suspended,
      atRisk: draft.atRisk,
      unreachable: draft.unreachable,
      lagSeconds: draft.lag.trim() === '' ? null : Number(draft.lag),
      backlogRows: draft.backlog.trim() === '' ? null : Number(draft.backlog),
    });
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue?.path[0] === 'lagSeconds' ? 'Lag threshold' : 'Backlog threshold';
      setProblem(`${field}: a whole number of at least 1, or empty for never.`);
      return;
    }
    setProblem(null);
    setSaved(await saveAlertSettings(parsed.data));
  };

  return (
    <section aria-labelledby="alerts-title" className="alert-settings">
      <h3 id="alerts-title">Notifications</h3>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <label>
          <input
            type="checkbox"
            checked={draft.failed}
            onChange={(e) => setDraft({ ...draft, failed: e.target.checked })}
          />{' '}
          When a pipeline fails
        </label>
        <label>
          <input
            type="checkbox"
            checked={draft.stopped}
            onChange={(e) => setDraft({ ...draft, stopped: e.target.checked })}
          />{' '}
          When a pipeline stops
        </label>
        <label>
          <input
            type="checkbox"
            checked={draft.suspended}
            onChange={(e) => setDraft({ ...draft, suspended: e.target.checked })}
          />{' '}
          When a table is suspended (the pipeline's other tables go on)
        </label>
        <label>
          <input
            type="checkbox"
            checked={draft.atRisk}
            onChange={(e) => setDraft({ ...draft, atRisk: e.target.checked })}
          />{' '}
          When the source may delete changes a pipeline still needs
        </label>
        <label>
          <input
            type="checkbox"
            checked={draft.unreachable}
            onChange={(e) => setDraft({ ...draft, unreachable: e.target.checked })}
          />{' '}
          When an engine stops answering (for {ENGINE_SILENCE_SECONDS} s)
        </label>
        <label>
          Lag threshold (seconds; empty: never)
          <input
            inputMode="numeric"
            value={draft.lag}
            aria-invalid={problem?.startsWith('Lag') ? true : undefined}
            onChange={(e) => setDraft({ ...draft, lag: e.target.value })}
          />
        </label>
        <label>
          Backlog threshold (rows; empty: never)
          <input
            inputMode="numeric"
            value={draft.backlog}
            aria-invalid={problem?.startsWith('Backlog') ? true : undefined}
            onChange={(e) => setDraft({ ...draft, backlog: e.target.value })}
          />
        </label>
        <div className="row-actions">
          <button type="submit" className="primary">
            Save notifications
          </button>
          {mode === 'web' && permission === 'default' && (
            <button
              type="button"
              onClick={() => void Notification.requestPermission().then(() => setPermission(permissionNow()))}
            >
              Allow notifications in this browser
            </button>
          )}
        </div>
      </form>
      {mode === 'web' && permission === 'denied' && (
        <p className="muted">
          This browser blocks notifications for this page: allow them in its site settings.
        </p>
      )}
      {(problem ?? error) && (
        <p role="alert" className="problem">
          {problem ?? error}
        </p>
      )}
      {saved && (
        <p role="status" className="ok">
          Saved.
        </p>
      )}
    </section>
  );
}
