// The scale bench's report: one table of what was measured, its figure and its target, and the results as JSON.
import type { KindStats } from './mixed-load.js';
import type { ExportResult, LoadDuringPull, RepullResult, WalkResult } from './measure.js';
import type { PullLine } from './store.js';

export interface BuiltFeed {
  fid: number;
  name: string;
  format: string;
  threat: string | null;
  pull: PullLine;
}

export interface ScaleResult {
  at: string;
  commit: string;
  node: string;
  cpus: number;
  loadBefore: number[];
  loadAfter: number[];
  store: 'sqlite' | 'postgres';
  indicators: number;
  feeds: number;
  workers: number;
  build: {
    /** Writing the feed files; 0 when files of the same parameters were reused. */
    generateSeconds: number;
    filesReused: boolean;
    addSeconds: number;
    pullSeconds: number;
    totalSeconds: number;
    /** Indicators the first pulls made: the store's distinct values. */
    indicators: number;
    listings: number;
    storeMB: number;
    feeds: BuiltFeed[];
  };
  biggest: { fid: number; name: string; values: number; threat: string; threatTid: number; threatLinks: number };
  unchanged: RepullResult;
  changed: RepullResult & { replaced: number };
  load: LoadDuringPull & { linksPage: number; explore: Record<string, string> };
  walk: WalkResult;
  export: ExportResult;
  lifecycle: { seconds: number; summary: string };
  rssEndMB: { pid: number; mb: number }[];
  storeMBEnd: number;
}

const num = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (n: number) => `${n.toFixed(1)} ms`;

interface Row {
  what: string;
  figure: string;
  target: string;
  /** undefined: no target. */
  met?: boolean;
}

function kindRows(r: ScaleResult): Row[] {
  const rows: Row[] = [];
  const byName = new Map(r.load.kinds.map((k) => [k.name, k]));
  const kind = (name: string): KindStats | undefined => byName.get(name);
  const errors = (k: KindStats) => (k.errors === 0 ? '' : `, ${k.errors} of ${num(k.requests)} not 200 (${Object.entries(k.statuses).map(([s, n]) => `${s}: ${n}`).join(', ')})`);
  const split = (k: KindStats) => `while the pull ran ${k.p99Before === null ? '-' : ms(k.p99Before)}, after ${k.p99After === null ? '-' : ms(k.p99After)}`;
  const p99 = (name: string, what: string, limit: number) => {
    const k = kind(name);
    if (k === undefined) return;
    rows.push({ what: `${what}: p99 (p50 ${ms(k.p50)}, max ${ms(k.max)}, ${num(k.requests)} requests; p99 ${split(k)})`, figure: `${ms(k.p99)}${errors(k)}`, target: `< ${limit} ms`, met: k.p99 < limit && k.errors === 0 });
  };
  p99('value', 'lookup by value, each value asked once', 20);
  p99('iid', 'lookup by iid', 20);
  p99('threat', `threat lookup of the biggest threat (tid ${r.biggest.threatTid}, ${num(r.biggest.threatLinks)} linked values)`, 20);
  p99('links', `links page ${r.load.linksPage} of the biggest feed`, 50);
  p99('taxii-tail', 'TAXII tail poll (added_after a minute ago)', 50);
  for (const [name, query] of Object.entries(r.load.explore)) {
    const k = kind(name);
    if (k === undefined) continue;
    rows.push({ what: `explore \`${query}\`: p95 (p99 ${ms(k.p99)}, ${num(k.requests)} requests; p99 ${split(k)})`, figure: `${ms(k.p95)}${errors(k)}`, target: '< 500 ms', met: k.p95 < 500 && k.errors === 0 });
  }
  return rows;
}

export function tableRows(r: ScaleResult): Row[] {
  const b = r.build;
  const biggest = `${num(r.biggest.values)} values`;
  const walkTarget = 5000;
  return [
    {
      what: `build: ${num(b.indicators)} distinct values, ${num(b.listings)} listings in ${r.feeds} feeds (files ${b.filesReused ? 'reused' : `${b.generateSeconds.toFixed(1)} s`}, feeds add ${b.addSeconds.toFixed(1)} s, first pulls ${b.pullSeconds.toFixed(1)} s)`,
      figure: `${b.totalSeconds.toFixed(1)} s`,
      target: '-',
    },
    { what: `unchanged re-pull of the biggest list (${biggest}; the pull itself ${r.unchanged.line.seconds.toFixed(1)} s)`, figure: `${r.unchanged.seconds.toFixed(1)} s`, target: '< 10 s', met: r.unchanged.seconds < 10 },
    {
      what: `the biggest list with 10% changed (${num(r.changed.replaced)} of ${biggest} replaced: ${num(r.changed.line.newIndicators)} new indicators; the pull itself ${r.changed.line.seconds.toFixed(1)} s)`,
      figure: `${r.changed.seconds.toFixed(1)} s`,
      target: '< 60 s',
      met: r.changed.seconds < 60,
    },
    {
      what: `background pull during the load: second biggest list, 10% changed (${num(r.load.pull.line.values)} values)`,
      figure: `${r.load.pull.seconds.toFixed(1)} s, ${r.load.overlapSeconds.toFixed(1)} s of the ${r.load.seconds} s load`,
      target: '-',
    },
    ...kindRows(r),
    { what: `TAXII ${r.walk.stopped ? 'walk' : 'full walk'} of the indicators collection, one client (${num(r.walk.objects)} objects, ${num(r.walk.pages)} pages, ${r.walk.seconds.toFixed(1)} s${r.walk.stopped ? ', stopped at --walk-seconds' : ''})`, figure: `${num(r.walk.objectsPerSecond)} objects/s`, target: `>= ${num(walkTarget)} objects/s`, met: r.walk.objectsPerSecond >= walkTarget },
    { what: `full export, /export/indicators.txt (${num(r.export.lines)} lines, ${r.export.megabytes.toFixed(1)} MB)`, figure: `${r.export.seconds.toFixed(1)} s`, target: '< 60 s', met: r.export.seconds < 60 },
    { what: 'full export: growth of a serving process\'s RSS', figure: `${r.export.rssGrowthMB.toFixed(0)} MB`, target: '< 300 MB', met: r.export.rssGrowthMB < 300 },
    { what: `lifecycle pass (${r.lifecycle.summary})`, figure: `${r.lifecycle.seconds.toFixed(1)} s`, target: '< 60 s', met: r.lifecycle.seconds < 60 },
    ...r.rssEndMB.map((p, i) => ({ what: `RSS at the end, serve process ${i === 0 ? `${p.pid} (primary)` : p.pid}`, figure: `${p.mb.toFixed(0)} MB`, target: '< 1 GB', met: p.mb < 1024 })),
  ];
}

export function formatTable(r: ScaleResult): string {
  const rows = tableRows(r);
  const head = [
    `${num(r.indicators)} indicators from ${r.feeds} feeds on ${r.store === 'postgres' ? 'PostgreSQL' : 'SQLite'} (${r.storeMBEnd.toFixed(0)} MB at the end), serve --workers ${r.workers}, ` +
      `mixed load ${r.load.rate}/s for ${r.load.seconds} s; commit ${r.commit}, Node ${r.node}, ${r.cpus} CPUs, load average ${r.loadBefore.map((l) => l.toFixed(1)).join(' ')} before, ${r.loadAfter.map((l) => l.toFixed(1)).join(' ')} after`,
    '',
    '| what | figure | target | |',
    '|---|---:|---|---|',
  ];
  return [...head, ...rows.map((row) => `| ${row.what} | ${row.figure} | ${row.target} | ${row.met === undefined ? '' : row.met ? 'met' : '**missed**'} |`)].join('\n');
}
