// The open pipeline's charts: throughput, lag, where the lag went (source, engine, target) and backlog
// over the last hour (a step a minute) or day (ten minutes), for the agent or one of its tables, with
// axes, units and the value under the pointer
// (uPlot: ~50 KB, canvas, built for time series that update live). The same figures are offered as a
// table, for the keyboard and screen readers, and each chart's caption says its latest and peak value.
import { useEffect, useRef, useState } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { hourMinute, count, latency, timeOfDay } from '../../shared/format';
import type { SeriesPoint, SeriesWindow } from '../../shared/liveFeed';
import { useStore } from '../store';
import { loadSeries } from '../store/pipelinePage';
import { FilterSelect } from '../ui/FilterSelect';

type Colour = 'accent' | 'warn' | 'ok';

interface Line {
  /** Its name in the legend and its column in the table. */
  label: string;
  colour: Colour;
  value: (p: SeriesPoint, stepSeconds: number) => number | null;
}

interface Measure {
  title: string;
  unit: string;
  /** Whole figures only (rows): the axis never shows half a row. */
  whole?: boolean;
  lines: Line[];
  format: (v: number) => string;
}

const one = (title: string, value: Line['value']): Line[] => [{ label: title, colour: 'accent', value }];

const perSecond = (v: number) => `${v < 10 && v > 0 ? v.toFixed(2) : count(Math.round(v))}/s`;
const MEASURES: Measure[] = [
  {
    title: 'Throughput',
    unit: 'changes per second',
    lines: one('Throughput', (p, step) => p.changes / step),
    format: perSecond,
  },
  {
    title: 'Lag',
    unit: 'seconds behind the source (peak)',
    lines: one('Lag', (p) => p.lagSeconds),
    // As Status and the events say a lag: a healthy pipeline runs a fraction of a second behind.
    format: latency,
  },
  {
    title: 'Where the lag went',
    unit: "the peak's batch: commit to read, read to apply, apply to commit",
    lines: [
      { label: 'At the source', colour: 'warn', value: (p) => p.latency?.sourceSeconds ?? null },
      { label: 'In the engine', colour: 'accent', value: (p) => p.latency?.engineSeconds ?? null },
      { label: 'At the target', colour: 'ok', value: (p) => p.latency?.targetSeconds ?? null },
    ],
    format: latency,
  },
  {
    title: 'Backlog',
    unit: 'rows waiting',
    whole: true,
    lines: one('Backlog', (p) => p.backlogRows),
    format: (v) => count(Math.round(v)),
  },
];

/** The figures table's columns: each line of each chart. */
const COLUMNS = MEASURES.flatMap((measure) => measure.lines.map((line) => ({ measure, line })));

/** Tick steps of a whole-number axis: 1, 2, 5, 10, 20, 50… */
const WHOLE_STEPS = Array.from(
  { length: 30 },
  (_, i) => (i % 3 === 0 ? 1 : i % 3 === 1 ? 2 : 5) * 10 ** Math.floor(i / 3),
);

const WINDOWS: { id: SeriesWindow; label: string }[] = [
  { id: 'hour', label: 'Last hour' },
  { id: 'day', label: 'Last day' },
];

/** The page's colours (they follow the light or dark scheme) for the canvas, which cannot read CSS. */
function colours() {
  const css = getComputedStyle(document.documentElement);
  const read = (name: string, fallback: string) => css.getPropertyValue(name).trim() || fallback;
  return {
    fg: read('--fg', '#1b1f24'),
    line: read('--line', '#d0d7de'),
    accent: read('--accent', '#0a58ca'),
    warn: read('--warn', '#9a6700'),
    ok: read('--ok', '#1a7f37'),
  };
}

function useColourScheme(): string {
  const query = '(prefers-color-scheme: dark)';
  const [dark, setDark] = useState(() => window.matchMedia(query).matches);
  useEffect(() => {
    const media = window.matchMedia(query);
    const change = () => setDark(media.matches);
    media.addEventListener('change', change);
    return () => media.removeEventListener('change', change);
  }, []);
  return dark ? 'dark' : 'light';
}

function TimeChart({
  measure,
  times,
  values,
}: {
  measure: Measure;
  times: number[];
  values: (number | null)[][];
}) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const scheme = useColourScheme();
  const data: uPlot.AlignedData = [times, ...values];

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const c = colours();
    const axis = { stroke: c.fg, grid: { stroke: c.line, width: 1 }, ticks: { stroke: c.line, width: 1 } };
    const chart = new uPlot(
      {
        width: Math.max(280, el.clientWidth),
        height: 150,
        scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] } },
        series: [
          { value: (_u, v) => (v === null ? '–' : timeOfDay(v * 1000)) },
          ...measure.lines.map((line) => ({
            label: line.label,
            stroke: c[line.colour],
            width: 2,
            // One line is filled under; several are left clear, so none hides another.
            ...(measure.lines.length === 1 && { fill: `${c[line.colour]}22` }),
            spanGaps: false,
            value: (_u: uPlot, v: number | null) => (v === null ? '–' : measure.format(v)),
          })),
        ],
        axes: [
          // The app's one time format (24-hour), not uPlot's own US-style labels.
          { ...axis, values: (_u, ticks) => ticks.map((t) => hourMinute(t * 1000)) },
          {
            ...axis,
            size: 64,
            ...(measure.whole && { incrs: WHOLE_STEPS }),
            values: (_u, ticks) => ticks.map((t) => measure.format(t)),
          },
        ],
        legend: { show: true },
      },
      // Empty here: the effect below (run after this one, every render) hands it the figures.
      [[], ...measure.lines.map(() => [])],
      el,
    );
    plot.current = chart;
    const resize = new ResizeObserver(() =>
      chart.setSize({ width: Math.max(280, el.clientWidth), height: 150 }),
    );
    resize.observe(el);
    return () => {
      resize.disconnect();
      chart.destroy();
      plot.current = null;
    };
  }, [measure, scheme]);

  useEffect(() => {
    plot.current?.setData(data);
  });

  const summary = measure.lines
    .map((line, i) => {
      const known = (values[i] ?? []).filter((v): v is number => v !== null);
      const latest = known.at(-1);
      if (latest === undefined) return null;
      const figures = `latest ${measure.format(latest)}, peak ${measure.format(Math.max(...known))}`;
      return measure.lines.length === 1 ? figures : `${line.label.toLowerCase()} ${figures}`;
    })
    .filter((text) => text !== null)
    .join('; ');
  return (
    <figure className="chart" aria-label={`${measure.title}, ${measure.unit}`}>
      <figcaption>
        <strong>{measure.title}</strong>{' '}
        <span className="muted">
          ({measure.unit}): {summary || 'no figures yet'}
        </span>
      </figcaption>
      <div ref={box} className="chart-canvas" />
    </figure>
  );
}

export function Charts() {
  const { series, seriesWindow, seriesError } = useStore((s) => s.pipelinePage);
  const [table, setTable] = useState('');
  if (!series) return seriesError ? <p className="muted">Charts: {seriesError}</p> : null;
  const points = table
    ? (series.tables.find((t) => t.table === table)?.points ?? series.points)
    : series.points;
  const times = points.map((p) => Date.parse(p.at) / 1000);
  const step = series.stepSeconds;
  const window = seriesWindow ?? 'hour';
  return (
    <section aria-labelledby="charts-title" className="charts">
      <h4 id="charts-title">Charts</h4>
      <div className="row-actions">
        {WINDOWS.map((w) => (
          <button
            key={w.id}
            type="button"
            aria-pressed={window === w.id}
            onClick={() => void loadSeries(w.id)}
          >
            {w.label}
          </button>
        ))}
        <FilterSelect
          label="Table"
          name="Chart table"
          all="All tables"
          value={table}
          options={series.tables.map((t) => ({ value: t.table, label: t.table }))}
          onChange={setTable}
        />
      </div>
      {MEASURES.map((m) => (
        <TimeChart
          key={m.title}
          measure={m}
          times={times}
          values={m.lines.map((line) => points.map((p) => line.value(p, step)))}
        />
      ))}
      <details>
        <summary>The figures as a table</summary>
        <table className="chart-table">
          <caption className="muted">
            {table || 'All tables'}, {window === 'hour' ? 'a row a minute' : 'a row every ten minutes'},
            newest first
          </caption>
          <thead>
            <tr>
              <th scope="col">Step</th>
              {COLUMNS.map(({ line }) => (
                <th key={line.label} scope="col">
                  {line.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {[...points].reverse().map((p) => (
              <tr key={p.at}>
                <th scope="row">{timeOfDay(p.at)}</th>
                {COLUMNS.map(({ measure, line }) => {
                  const v = line.value(p, step);
                  return <td key={line.label}>{v === null ? '–' : measure.format(v)}</td>;
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </section>
  );
}
