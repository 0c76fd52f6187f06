// A chart of figures per run, drawn on the server as SVG (d3-scale, d3-shape): no script, nothing inline a CSP would refuse,
// named and described for assistive technology, with the same figures in a table beside it.
import { scaleLinear, scalePoint } from 'd3-scale';
import { line } from 'd3-shape';
import { AXIS_FONT_PX, LABEL_HEIGHT_EM, labelWidth, runLabelOrder, thinLabels } from './chart-labels.js';

export interface ChartSeries {
  label: string;
  /** One figure per run, oldest first; null where the run has none (a failed run lists nothing). */
  values: ReadonlyArray<number | null>;
}

export interface RunChartProps {
  /** Unique on the page: the ids of the chart's title and description start with it. */
  id: string;
  /** The chart's accessible name and the caption of its table. */
  title: string;
  /** One label per run, oldest first (its start, `YYYY-MM-DD HH:MM:SS`). */
  runs: readonly string[];
  /** Which runs failed, drawn as a mark under the axis and said in the table. */
  failed: readonly boolean[];
  /** At most four series, told apart by dash pattern and marker as well as by colour. */
  series: readonly ChartSeries[];
  size: 'small' | 'large';
}

const SIZES = {
  small: { width: 360, height: 144, margin: { top: 10, right: 12, bottom: 30, left: 44 }, ticks: 3 },
  large: { width: 720, height: 260, margin: { top: 14, right: 16, bottom: 40, left: 56 }, ticks: 5 },
} as const;

const MARKERS = ['circle', 'square', 'diamond', 'triangle'] as const;

function Marker({ kind, x, y, index }: { kind: (typeof MARKERS)[number]; x: number; y: number; index: number }) {
  const cls = `dot-${index}`;
  if (kind === 'circle') return <circle class={cls} cx={x} cy={y} r={3} />;
  if (kind === 'square') return <rect class={cls} x={x - 3} y={y - 3} width={6} height={6} />;
  if (kind === 'diamond') return <path class={cls} d={`M${x},${y - 4}L${x + 4},${y}L${x},${y + 4}L${x - 4},${y}Z`} />;
  return <path class={cls} d={`M${x},${y - 4}L${x + 4},${y + 3}L${x - 4},${y + 3}Z`} />;
}

/** A sentence that says what the chart shows: the span of runs and each series' latest figure and highest. */
export function chartDescription(runs: readonly string[], failed: readonly boolean[], series: readonly ChartSeries[]): string {
  if (runs.length === 0) return 'No runs yet.';
  const span = runs.length === 1 ? `1 run, at ${runs[0]} UTC` : `${runs.length} runs, from ${runs[0]} to ${runs[runs.length - 1]} UTC`;
  const failures = failed.filter(Boolean).length;
  const figures = series.map((s) => {
    const known = s.values.filter((v): v is number => v !== null);
    const latest = [...s.values].reverse().find((v) => v !== null);
    return known.length === 0 ? `${s.label}: none` : `${s.label}: latest ${latest}, highest ${Math.max(...known)}`;
  });
  return `${span}${failures > 0 ? `, ${failures} failed` : ''}. ${figures.join('; ')}.`;
}

/** A run's label on the axis: its start to the minute. */
const runLabel = (run: string) => run.slice(0, 16);

export function RunChart({ id, title, runs, failed, series, size }: RunChartProps) {
  const { width, height, margin: base, ticks } = SIZES[size];
  const highest = Math.max(1, ...series.flatMap((s) => s.values.filter((v): v is number => v !== null)));
  const y = scaleLinear().domain([0, highest]).nice(ticks).range([height - base.bottom, base.top]);
  // The value axis: its ticks thinned so that no two labels overlap, the highest and the lowest first.
  const tickValues = y.ticks(ticks).filter(Number.isInteger);
  const tickOrder = tickValues.length <= 2 ? tickValues : [tickValues[tickValues.length - 1]!, tickValues[0]!, ...tickValues.slice(1, -1)];
  const lineHeight = AXIS_FONT_PX * LABEL_HEIGHT_EM;
  const yTicks = thinLabels(tickOrder.map((tick) => ({ at: y(tick), size: lineHeight })), { min: 0, max: height }).map((placed) => ({
    tick: tickOrder[placed.index]!,
    text: tickOrder[placed.index]!.toLocaleString('en-US'),
    at: placed.start + placed.size / 2,
  }));
  // Long figures widen the left margin, so that their labels stay inside the chart.
  const margin = { ...base, left: Math.max(base.left, Math.ceil(Math.max(0, ...yTicks.map((t) => labelWidth(t.text)))) + 10) };
  const x = scalePoint<number>()
    .domain(runs.map((_, i) => i))
    .range([margin.left, width - margin.right])
    .padding(0.5);
  const path = line<number | null>()
    .defined((v) => v !== null)
    .x((_, i) => x(i) ?? 0)
    .y((v) => y(v ?? 0));
  // The run axis: the latest and the first run, then as many between as fit without two labels
  // overlapping (chart-labels.ts); the table names every run.
  const runOrder = runLabelOrder(runs.length);
  const labelled = thinLabels(runOrder.map((i) => ({ at: x(i) ?? 0, size: labelWidth(runLabel(runs[i]!)) })), { min: 0, max: width }).map((placed) => ({
    run: runOrder[placed.index]!,
    at: placed.start + placed.size / 2,
  }));
  const description = chartDescription(runs, failed, series);

  return (
    <figure class={`chart chart-${size}`}>
      <svg role="img" aria-labelledby={`${id}-title ${id}-desc`} viewBox={`0 0 ${width} ${height}`} width={width} height={height} xmlns="http://www.w3.org/2000/svg">
        <title id={`${id}-title`}>{title}</title>
        <desc id={`${id}-desc`}>{description}</desc>
        <g class="axis">
          {yTicks.map(({ tick, text, at }) => (
            <g key={tick}>
              <line class="grid" x1={margin.left} x2={width - margin.right} y1={y(tick)} y2={y(tick)} />
              <text x={margin.left - 6} y={at} dy="0.32em" text-anchor="end">
                {text}
              </text>
            </g>
          ))}
          <line x1={margin.left} x2={width - margin.right} y1={height - margin.bottom} y2={height - margin.bottom} />
          {labelled.map(({ run, at }) => (
            <text key={run} x={at} y={height - margin.bottom + 21} text-anchor="middle" data-run={run}>
              {runLabel(runs[run]!)}
            </text>
          ))}
        </g>
        {failed.map((isFailed, i) => isFailed && <path key={`f${i}`} class="failed-run" d={`M${x(i)! - 4},${height - margin.bottom + 2}l8,0l-4,6z`} />)}
        {series.map((s, index) => (
          <g key={s.label}>
            <path class={`series series-${index}`} d={path(s.values as Array<number | null>) ?? ''} />
            {s.values.map((v, i) => v !== null && <Marker key={i} kind={MARKERS[index % MARKERS.length]!} x={x(i) ?? 0} y={y(v)} index={index} />)}
          </g>
        ))}
      </svg>
      <ul class="legend" aria-hidden="true">
        {series.map((s, index) => (
          <li key={s.label}>
            <svg viewBox="0 0 28 10" width={28} height={10}>
              <line class={`series series-${index}`} x1={0} x2={28} y1={5} y2={5} />
              <Marker kind={MARKERS[index % MARKERS.length]!} x={14} y={5} index={index} />
            </svg>
            {s.label}
          </li>
        ))}
        {failed.some(Boolean) && (
          <li>
            <svg viewBox="0 0 28 10" width={28} height={10}>
              <path class="failed-run" d="M10,2l8,0l-4,6z" />
            </svg>
            failed run
          </li>
        )}
      </ul>
      <details class="figures">
        <summary>Figures of this chart</summary>
        <div class="table-wrap">
          <table>
            <caption>{title}</caption>
            <thead>
              <tr>
                <th scope="col">Run started (UTC)</th>
                {series.map((s) => (
                  <th key={s.label} scope="col" class="number">
                    {s.label}
                  </th>
                ))}
                <th scope="col">Outcome</th>
              </tr>
            </thead>
            <tbody>
              {runs.map((run, i) => (
                <tr key={i}>
                  <th scope="row">{run}</th>
                  {series.map((s) => (
                    <td key={s.label} class="number">
                      {s.values[i] === null ? 'none' : s.values[i]!.toLocaleString('en-US')}
                    </td>
                  ))}
                  <td>{failed[i] ? 'failed' : 'good'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}
