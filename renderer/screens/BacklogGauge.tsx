// The backlog of the selected agent: a gauge of the rows waiting, changed rows waiting and versions
// behind (change tracking) or rows to read and minutes left (journal); its history is in the charts.
import type { z } from 'zod';
import type { AgentState, backlogAnswerSchema } from '../../shared/controlApi';
import { plural, timeOfDay } from '../../shared/format';

type Backlog = z.infer<typeof backlogAnswerSchema>;

/** Minutes as a person reads them: seconds below a minute, never "0.0 minutes". */
function duration(minutes: number): string {
  if (minutes < 1 / 60) return 'under a second';
  if (minutes < 1) return `${Math.round(minutes * 60)} seconds`;
  return `${minutes.toFixed(1)} minutes`;
}

/** The gauge's scale: rows waiting on a log scale up to a million (a night's backlog and more). */
const GAUGE_MAX = 1_000_000;
/** Where the backlog stops being "behind" and becomes "far behind" (the colour follows the words). */
const FAR_BEHIND = 10_000;

const LEVELS = {
  ok: 'caught up',
  warn: 'behind',
  problem: 'far behind',
} as const;
const BAND = { ok: 'band-ok', warn: 'band-behind', problem: 'band-far' } as const;

/** A point on the gauge's half circle for a share of its scale (0 left, 1 right). */
function arcPoint(share: number): [number, number] {
  const angle = Math.PI * (1 - Math.min(1, Math.max(0, share)));
  return [60 + 50 * Math.cos(angle), 60 - 50 * Math.sin(angle)];
}
const arc = (from: number, to: number) => {
  const [x1, y1] = arcPoint(from);
  const [x2, y2] = arcPoint(to);
  return `M ${x1.toFixed(2)} ${y1.toFixed(2)} A 50 50 0 0 1 ${x2.toFixed(2)} ${y2.toFixed(2)}`;
};
const share = (rows: number) => Math.log10(rows + 1) / Math.log10(GAUGE_MAX + 1);

/**
 * A gauge of the rows waiting: a half circle on a log scale (0 to 1,000,000), its bands the levels, a
 * needle at the value, and the value and level in words beside it, so nothing depends on colour alone.
 */
function Gauge({ rows, level, large }: { rows: number; level: keyof typeof LEVELS; large: boolean }) {
  const [x, y] = arcPoint(share(rows));
  return (
    <svg
      className="gauge"
      viewBox="0 0 120 68"
      width={large ? 240 : 150}
      height={large ? 136 : 85}
      role="meter"
      aria-label="Rows waiting"
      aria-valuemin={0}
      aria-valuemax={GAUGE_MAX}
      aria-valuenow={Math.min(rows, GAUGE_MAX)}
      aria-valuetext={`${plural(rows, 'row')} waiting: ${LEVELS[level]}`}
    >
      {/* A grey track, coloured only as far as the value, in the colour of its level. */}
      <path d={arc(0, 1)} className="band band-track" />
      {rows > 0 && <path d={arc(0, share(rows))} className={`band ${BAND[level]}`} aria-hidden="true" />}
      <line x1="60" y1="60" x2={x.toFixed(2)} y2={y.toFixed(2)} className="needle" />
      <circle cx="60" cy="60" r="3" className="needle" />
      <text x="10" y="67" className="tick">
        0
      </text>
      <text x="110" y="67" className="tick" textAnchor="end">
        1M
      </text>
      <text x="60" y="7" className="tick" textAnchor="middle">
        1k
      </text>
    </svg>
  );
}

/** What holds rows back while the pipeline is not running: no estimate of time left holds then. */
const STILL: Partial<Record<AgentState, string>> = {
  paused: 'nothing is read until Resume',
  stopped: 'nothing is read until Start',
  failed: 'nothing is read until Start',
};

/** `large`: the pipeline's Status, where the gauge leads; `state`: the pipeline's, when known. */
export function BacklogGauge({
  backlog,
  state,
  large = false,
}: {
  backlog: Backlog | undefined;
  state?: AgentState;
  large?: boolean;
}) {
  if (!backlog) return null;
  const now = backlog.current;
  if (!now) return <p className="muted">Backlog: {backlog.unavailableReason}</p>;
  const rows = now.rowsToRead ?? 0;
  const level = rows === 0 ? 'ok' : rows < FAR_BEHIND ? 'warn' : 'problem';
  const still = state && STILL[state];
  return (
    <div className="backlog" aria-label="Backlog">
      {now.rowsToRead !== null && (
        <figure className="gauge-figure">
          <Gauge rows={now.rowsToRead} level={level} large={large} />
          <figcaption className="muted">Rows waiting, log scale: 0, 1k at the top, 1M</figcaption>
        </figure>
      )}
      <p className={level}>
        <strong>{now.rowsToRead === null ? 'unknown rows' : plural(now.rowsToRead, 'row')} waiting</strong>
        {now.rowsToRead !== null && <> ({LEVELS[level]})</>}
        {/* Versions behind with no row waiting are other tables' changes: caught up says it all. */}
        {now.versionsBehind !== null && rows > 0 && <> · {plural(now.versionsBehind, 'version')} behind</>}
        {still && rows > 0 && <> · {still}</>}
        {!still && now.minutesLeft !== null && now.minutesLeft > 0 && (
          <> · about {duration(now.minutesLeft)} left</>
        )}
        {!still && typeof now.measuredMinutesLeft === 'number' && now.measuredMinutesLeft > 0 && (
          <> · {duration(now.measuredMinutesLeft)} at the measured rate</>
        )}
        {/* Change tracking reports versions; it keeps one change per row, whatever ran on it. */}
        {now.versionsBehind !== null && rows > 0 && (
          <span className="muted">
            {' '}
            · each changed row counted once: Change Tracking folds several statements on one row into one
            change
          </span>
        )}
        {Number.isFinite(Date.parse(now.at)) && (
          <span className="muted" aria-label="Backlog measured at">
            {' '}
            · as of {timeOfDay(now.at)}
          </span>
        )}
      </p>
    </div>
  );
}
