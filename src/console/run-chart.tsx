// A chart of figures per run, drawn on the server as SVG (d3-scale, d3-shape): no script, nothing inline a CSP would refuse,
// named and described for assistive technology, with the same figures in a table beside it.
import { scaleLinear, scalePoint } from 'd3-scale';
import { line } from 'd3-shape';

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

export function RunChart({ id, title, runs, failed, series, size }: RunChartProps) {
  const { width, height, margin, ticks } = SIZES[size];
  const x = scalePoint<number>()
    .domain(runs.map((_, i) => i))
    .range([margin.left, width - margin.right])
    .padding(0.5);
  const highest = Math.max(1, ...series.flatMap((s) => s.values.filter((v): v is number => v !== null)));
  const y = scaleLinear().domain([0, highest]).nice(ticks).range([height - margin.bottom, margin.top]);
  const yTicks = y.ticks(ticks).filter(Number.isInteger);
  const path = line<number | null>()
    .defined((v) => v !== null)
    .x((_, i) => x(i) ?? 0)
    .y((v) => y(v ?? 0));
  // The first and last run are labelled on the axis; the table names every one.
  const labelled = runs.length <= 1 ? [0] : [0, runs.length - 1];
  const description = chartDescription(runs, failed, series);

  return (
    <figure class={`chart chart-${size}`}>
      <svg role="img" aria-labelledby={`${id}-title ${id}-desc`} viewBox={`0 0 ${width} ${height}`} width={width} height={height} xmlns="http://www.w3.org/2000/svg">
        <title id={`${id}-title`}>{title}</title>
        <desc id={`${id}-desc`}>{description}</desc>
        <g class="axis">
          {yTicks.map((tick) => (
            <g key={tick}>
              <line class="grid" x1={margin.left} x2={width - margin.right} y1={y(tick)} y2={y(tick)} />
              <text x={margin.left - 6} y={y(tick)} dy="0.32em" text-anchor="end">
                {tick.toLocaleString('en-US')}
              </text>
            </g>
          ))}
          <line x1={margin.left} x2={width - margin.right} y1={height - margin.bottom} y2={height - margin.bottom} />
          {runs.length > 0 &&
            labelled.map((i) => (
              <text key={i} x={x(i)} y={height - margin.bottom + 21} text-anchor={labelled.length > 1 ? (i === 0 ? 'start' : 'end') : 'middle'}>
                {runs[i]!.slice(0, 16)}
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
