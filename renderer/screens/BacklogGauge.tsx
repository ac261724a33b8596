// The backlog of the selected agent: changed rows waiting and versions behind (change tracking) or
// rows to read and minutes left (journal), with the last hour as a line.
import type { z } from 'zod';
import type { backlogAnswerSchema } from '../../shared/controlApi';
import { plural } from '../../shared/format';

type Backlog = z.infer<typeof backlogAnswerSchema>;

function Line({ points }: { points: number[] }) {
  if (points.length < 2) return null;
  const max = Math.max(1, ...points);
  const path = points.map((p, i) => `${(i / (points.length - 1)) * 200},${40 - (p / max) * 38}`).join(' ');
  return (
    <svg viewBox="0 0 200 40" width="200" height="40" role="img" aria-label="Backlog over the last hour">
      <polyline points={path} fill="none" stroke="currentColor" strokeWidth="1.5" />
    </svg>
  );
}

/** Minutes as a person reads them: seconds below a minute, never "0.0 minutes". */
function duration(minutes: number): string {
  if (minutes < 1 / 60) return 'under a second';
  if (minutes < 1) return `${Math.round(minutes * 60)} seconds`;
  return `${minutes.toFixed(1)} minutes`;
}

export function BacklogGauge({ backlog }: { backlog: Backlog | undefined }) {
  if (!backlog) return null;
  const now = backlog.current;
  if (!now) return <p className="muted">Backlog: {backlog.unavailableReason}</p>;
  const rows = now.rowsToRead ?? 0;
  const level = rows === 0 ? 'ok' : rows < 10_000 ? 'warn' : 'problem';
  return (
    <div className="backlog" aria-label="Backlog">
      <p className={level}>
        <strong>{now.rowsToRead === null ? 'unknown rows' : plural(now.rowsToRead, 'row')} waiting</strong>
        {now.versionsBehind !== null && <> · {plural(now.versionsBehind, 'version')} behind</>}
        {now.minutesLeft !== null && now.minutesLeft > 0 && <> · about {duration(now.minutesLeft)} left</>}
        {typeof now.measuredMinutesLeft === 'number' && now.measuredMinutesLeft > 0 && (
          <> · {duration(now.measuredMinutesLeft)} at the measured rate</>
        )}
      </p>
      <Line points={backlog.history.map((p) => p.rowsToRead ?? 0)} />
    </div>
  );
}
