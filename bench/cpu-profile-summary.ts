// Summarizes a V8 .cpuprofile (node --cpu-prof): top functions by self time, and self time per source file and package.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface SelfTimeRow {
  name: string;
  where: string;
  ms: number;
  share: number;
}

export interface ProfileSummary {
  totalMs: number;
  functions: SelfTimeRow[];
  files: SelfTimeRow[];
  packages: SelfTimeRow[];
  /** Inclusive time of the named functions (self time of the function and everything it calls). */
  inclusive: SelfTimeRow[];
}

/** `node_modules/better-sqlite3/lib/x.js` → `better-sqlite3`; `dist/store/x.js` → `threatgate`; `node:internal/...` → `node`. */
function packageOf(url: string): string {
  if (url === '') return '(native / vm)';
  // better-sqlite3 runs statements synchronously inside Kysely's executeQuery: its self time is SQLite.
  if (url.includes('kysely/dist/esm/dialect/sqlite/sqlite-driver.js')) return 'SQLite (self time of kysely executeQuery)';
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (match) return match[1]!;
  if (url.startsWith('node:')) return 'node';
  // import-phases.ts wraps better-sqlite3's calls: their self time is SQLite executing the statement.
  if (/\/bench\//.test(url)) return 'bench wrappers (≈ SQLite execution)';
  return 'threatgate';
}

function shortUrl(url: string): string {
  if (url === '') return '';
  const modules = url.lastIndexOf('node_modules/');
  if (modules >= 0) return url.slice(modules + 'node_modules/'.length);
  const dist = url.lastIndexOf('/dist/');
  if (dist >= 0) return url.slice(dist + 1);
  return url.replace(/^file:\/\//, '');
}

function rows(map: Map<string, { name: string; where: string; ms: number }>, totalMs: number, limit: number): SelfTimeRow[] {
  return [...map.values()]
    .sort((a, b) => b.ms - a.ms)
    .slice(0, limit)
    .map((r) => ({ ...r, share: r.ms / totalMs }));
}

function add(map: Map<string, { name: string; where: string; ms: number }>, key: string, name: string, where: string, ms: number): void {
  const row = map.get(key);
  if (row) row.ms += ms;
  else map.set(key, { name, where, ms });
}

/** A time window of the profiled run, in the profile's clock (process.hrtime µs on Linux). */
export interface PhaseWindow {
  name: string;
  fromUs: number;
  toUs: number;
}

/** Summarizes the whole profile, or only the samples taken inside `window`. */
export function summarizeProfile(profile: CpuProfile, limit = 25, inclusiveNames: readonly string[] = [], window?: PhaseWindow): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  let at = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i]!;
    at += profile.timeDeltas[i] ?? 0;
    if (window && (at < window.fromUs || at >= window.toUs)) continue;
    // timeDeltas[i] is the time before sample i; attribute the next delta to this sample.
    const delta = profile.timeDeltas[i + 1] ?? 0;
    selfUs.set(id, (selfUs.get(id) ?? 0) + Math.max(0, delta));
  }
  let totalUs = 0;
  for (const us of selfUs.values()) totalUs += us;
  const totalMs = totalUs / 1000;

  const functions = new Map<string, { name: string; where: string; ms: number }>();
  const files = new Map<string, { name: string; where: string; ms: number }>();
  const packages = new Map<string, { name: string; where: string; ms: number }>();
  for (const [id, us] of selfUs) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const name = functionName || '(anonymous)';
    const where = url ? `${shortUrl(url)}:${lineNumber + 1}` : '';
    add(functions, `${name}@${where}`, name, where, us / 1000);
    add(files, url || name, url ? shortUrl(url) : name, '', us / 1000);
    const pkg = url ? packageOf(url) : name.startsWith('(') ? name : '(native / vm)';
    add(packages, pkg, pkg, '', us / 1000);
  }

  // Inclusive time: walk each sampled node's ancestors once per named function.
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const inclusive = new Map<string, { name: string; where: string; ms: number }>();
  if (inclusiveNames.length > 0) {
    const wanted = new Set(inclusiveNames);
    for (const [id, us] of selfUs) {
      const seen = new Set<string>();
      for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
        const name = byId.get(at)!.callFrame.functionName;
        if (wanted.has(name) && !seen.has(name)) {
          seen.add(name);
          add(inclusive, name, name, '', us / 1000);
        }
      }
    }
  }

  return {
    totalMs,
    functions: rows(functions, totalMs, limit),
    files: rows(files, totalMs, limit),
    packages: rows(packages, totalMs, limit),
    inclusive: inclusiveNames.map((name) => ({ name, where: '', ms: inclusive.get(name)?.ms ?? 0, share: (inclusive.get(name)?.ms ?? 0) / totalMs })),
  };
}

export async function readProfile(path: string): Promise<CpuProfile> {
  return JSON.parse(await readFile(path, 'utf8')) as CpuProfile;
}

export async function summarizeProfileFile(path: string, limit = 25, inclusiveNames: readonly string[] = []): Promise<ProfileSummary> {
  return summarizeProfile(await readProfile(path), limit, inclusiveNames);
}

function table(title: string, list: readonly SelfTimeRow[], withWhere: boolean): string {
  const head = withWhere ? `| ${title} | where | self ms | share |\n|---|---|---:|---:|` : `| ${title} | ms | share |\n|---|---:|---:|`;
  const body = list.map((r) =>
    withWhere
      ? `| ${r.name} | ${r.where} | ${r.ms.toFixed(0)} | ${(r.share * 100).toFixed(1)}% |`
      : `| ${r.name} | ${r.ms.toFixed(0)} | ${(r.share * 100).toFixed(1)}% |`,
  );
  return [head, ...body].join('\n');
}

export function formatProfileSummary(summary: ProfileSummary): string {
  const parts = [`sampled time: ${(summary.totalMs / 1000).toFixed(1)} s`, table('package (self time)', summary.packages.slice(0, 10), false)];
  if (summary.files.length > 0) parts.push(table('file (self time)', summary.files.slice(0, 15), false));
  parts.push(table('function (self time)', summary.functions, true));
  if (summary.inclusive.length > 0) parts.push(table('function (inclusive time)', summary.inclusive, false));
  return parts.join('\n\n');
}

/**
 * Functions of the import path whose inclusive time tells the phases apart. The file worker's
 * (readNdjson to indicatorHash) and the render worker's (renderJobRows) are in their threads' profiles.
 */
export const IMPORT_PHASES = [
  'readNdjson',
  'validateRecords',
  'parseRecord',
  'prepareBatches',
  'pushIndicator',
  'indicatorHash',
  'writeBatch',
  'upsert',
  'checkLinkTargets',
  'moveLinks',
  'refreshLookupData',
  'renumberLinks',
  'refreshAggregates',
  'aggregateByIndicator',
  'renderJobRows',
  'syncAllIndicatorsAndLinks',
];

async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { top: { type: 'string' }, functions: { type: 'string' }, 'phases-file': { type: 'string' } },
  });
  if (positionals.length !== 1) {
    process.stderr.write(
      'Usage: node --import tsx bench/cpu-profile-summary.ts FILE.cpuprofile [--top 25] [--functions fnA,fnB] [--phases-file PHASES.json]\n' +
        '  --functions: report the inclusive time of these functions (default: the import path)\n' +
        '  --phases-file: also summarize each phase window written by import-phases.ts --phases-out\n',
    );
    process.exitCode = 1;
    return;
  }
  const top = Number(values.top ?? 25);
  const functions = values.functions ? values.functions.split(',') : IMPORT_PHASES;
  const profile = await readProfile(positionals[0]!);
  process.stdout.write(`## whole run\n\n${formatProfileSummary(summarizeProfile(profile, top, functions))}\n`);
  if (values['phases-file']) {
    const windows = JSON.parse(await readFile(values['phases-file'], 'utf8')) as PhaseWindow[];
    for (const window of windows) {
      const summary = summarizeProfile(profile, Math.min(top, 15), [], window);
      if (summary.totalMs < 50) continue;
      process.stdout.write(`\n## phase: ${window.name}\n\n${formatProfileSummary({ ...summary, files: [] })}\n`);
    }
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    process.stderr.write(`cpu-profile-summary: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
