// When the app tells the user: a pipeline that fails or stops, a table suspended, changes at risk, a
// schema change, a lag or backlog over a threshold (empty: never), an engine that stops answering.
// Desktop notifications come from main; in a browser this tab shows them once allowed.
import { useEffect, useState } from 'react';
import { alertSettingsSchema, ENGINE_SILENCE_SECONDS, type AlertSettings } from '../../shared/push';
import { useStore } from '../store';
import { loadAlertSettings, saveAlertSettings } from '../store/fleet';

/** The settings that ring or not, each a checkbox with its words. */
type Toggle = 'failed' | 'stopped' | 'suspended' | 'atRisk' | 'schemaChanges' | 'unreachable';
const TOGGLES: readonly { key: Toggle; label: string }[] = [
  { key: 'failed', label: 'When a pipeline fails' },
  { key: 'stopped', label: 'When a pipeline stops' },
  { key: 'suspended', label: "When a table is suspended (the pipeline's other tables go on)" },
  { key: 'atRisk', label: 'When the source may delete changes a pipeline still needs' },
  { key: 'schemaChanges', label: "When a table's columns change at the source (applied or withheld)" },
  { key: 'unreachable', label: `When an engine stops answering (for ${ENGINE_SILENCE_SECONDS} s)` },
];

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
    ...(Object.fromEntries(TOGGLES.map((t) => [t.key, settings[t.key]])) as Record<Toggle, boolean>),
    lag: settings.lagSeconds === null ? '' : String(settings.lagSeconds),
    backlog: settings.backlogRows === null ? '' : String(settings.backlogRows),
  });
  const [problem, setProblem] = useState<string | null>(null);
  const [permission, setPermission] = useState<Permission>(permissionNow);

  const save = async () => {
    setSaved(false);
    const parsed = alertSettingsSchema.safeParse({
      ...Object.fromEntries(TOGGLES.map((t) => [t.key, draft[t.key]])),
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
        {TOGGLES.map((t) => (
          <label key={t.key}>
            <input
              type="checkbox"
              checked={draft[t.key]}
              onChange={(e) => setDraft({ ...draft, [t.key]: e.target.checked })}
            />{' '}
            {t.label}
          </label>
        ))}
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
