// The open pipeline's charts: throughput, lag and backlog over the last hour (a step a minute) or day
// (ten minutes), for the agent or one of its tables, with axes, units and the value under the pointer
// (uPlot: ~50 KB, canvas, built for time series that update live). The same figures are offered as a
// table, for the keyboard and screen readers, and each chart's caption says its latest and peak value.
import { useEffect, useRef, useState } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { hourMinute, count, duration, timeOfDay } from '../../shared/format';
import type { SeriesPoint, SeriesWindow } from '../../shared/liveFeed';
import { useStore } from '../store';
import { loadSeries } from '../store/pipelinePage';
import { FilterSelect } from '../ui/FilterSelect';

interface Measure {
  title: string;
  unit: string;
  /** Whole figures only (rows): the axis never shows half a row. */
  whole?: boolean;
  value: (p: SeriesPoint, stepSeconds: number) => number | null;
  format: (v: number) => string;
}

const perSecond = (v: number) => `${v < 10 && v > 0 ? v.toFixed(2) : count(Math.round(v))}/s`;
const MEASURES: Measure[] = [
  {
    title: 'Throughput',
    unit: 'changes per second',
    value: (p, step) => p.changes / step,
    format: perSecond,
  },
  {
    title: 'Lag',
    unit: 'seconds behind the source (peak)',
    value: (p) => p.lagSeconds,
    // Under ten seconds the tenths matter (a healthy pipeline runs a fraction of a second behind).
    format: (v) => (v < 10 ? `${v.toFixed(1)} s` : duration(v)),
  },
  {
    title: 'Backlog',
    unit: 'rows waiting (peak)',
    whole: true,
    value: (p) => p.backlogRows,
    format: (v) => count(Math.round(v)),
  },
];

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
  values: (number | null)[];
}) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const scheme = useColourScheme();
  const data: uPlot.AlignedData = [times, values];

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
          {
            label: measure.title,
            stroke: c.accent,
            width: 2,
            fill: `${c.accent}22`,
            spanGaps: false,
            value: (_u, v) => (v === null ? '–' : measure.format(v)),
          },
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
      [[], []],
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

  const known = values.filter((v): v is number => v !== null);
  const latest = [...values].reverse().find((v) => v !== null) ?? null;
  const summary =
    known.length === 0
      ? 'no figures yet'
      : `latest ${measure.format(latest ?? 0)}, peak ${measure.format(Math.max(...known))}`;
  return (
    <figure className="chart" aria-label={`${measure.title}, ${measure.unit}`}>
      <figcaption>
        <strong>{measure.title}</strong>{' '}
        <span className="muted">
          ({measure.unit}): {summary}
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
        <TimeChart key={m.title} measure={m} times={times} values={points.map((p) => m.value(p, step))} />
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
              {MEASURES.map((m) => (
                <th key={m.title} scope="col">
                  {m.title}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {[...points].reverse().map((p) => (
              <tr key={p.at}>
                <th scope="row">{timeOfDay(p.at)}</th>
                {MEASURES.map((m) => {
                  const v = m.value(p, step);
                  return <td key={m.title}>{v === null ? '–' : m.format(v)}</td>;
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </section>
  );
}
