// The HTTP benchmark's --cpu-prof mode: one threatgate run per scenario under --cpu-prof, summarized over the measured run.
import { join, relative } from 'node:path';
import { formatProfileSummary, readProfile, summarizeProfile } from '../cpu-profile-summary.js';
import { ms, num, ROOT, sizeLabel, type Options } from './common.js';
import { prepareSize } from './data.js';
import { quiesce, stopServer, type CoreLayout } from './processes.js';
import { discoverScenarios, type Scenario } from './scenarios.js';
import { startThreatgate } from './servers.js';
import { runWrk, type LoadSettings, type WrkRun } from './wrk.js';

/** Functions that do one part of a request and call no later middleware, so their inclusive time is that part's cost. */
const REQUEST_PARTS = ['authenticateKey', 'hashKey', 'executeQuery', 'prepare', 'increment', 'listCollectionObjects', 'incrementNow', 'decodeNext', 'encodeNext', 'envelopeJson', 'sendJsonText', 'sendTaxii', 'redactUrl'];

const nowUs = () => Number(process.hrtime.bigint() / 1000n);

/** Profiles one scenario: a fresh server under --cpu-prof, warm-up, one measured run; summarizes that run's samples. */
async function profileScenario(s: Scenario, db: string, options: Options, layout: CoreLayout, load: LoadSettings, label: string): Promise<string> {
  const dir = join(options.outDir, 'profiles');
  const name = `serve-${label}-${s.id}.cpuprofile`;
  const server = await startThreatgate(db, options, layout, label, ['--cpu-prof', '--cpu-prof-dir', dir, '--cpu-prof-name', name]);
  let run: WrkRun;
  // The profile's clock is the monotonic clock, shared by every process on the machine.
  const window = { name: s.id, fromUs: 0, toUs: 0 };
  try {
    if (options.warmup > 0) await runWrk(server.port, s.path, s.headers, options.warmup, load);
    await quiesce([server]);
    window.fromUs = nowUs();
    run = await runWrk(server.port, s.path, s.headers, options.duration, load);
    window.toUs = nowUs();
  } finally {
    await stopServer(server);
  }
  const summary = summarizeProfile(await readProfile(join(dir, name)), 15, REQUEST_PARTS, window);
  const idleMs = summary.packages.find((p) => p.name === '(idle)')?.ms ?? 0;
  const perRequest = (ms: number) => `${((ms * 1000) / Math.max(1, run.requests)).toFixed(0)} µs`;
  const parts = summary.inclusive.filter((r) => r.ms > 0).map((r) => `${r.name} ${perRequest(r.ms)}`);
  return [
    `### ${label} ${s.id}: ${num(run.rps)} req/s, p50 ${ms(run.p50Ms)} ms, p99 ${ms(run.p99Ms)} ms; ${perRequest(summary.totalMs - idleMs)} of CPU per request`,
    '',
    `Per request, inclusive: ${parts.join(', ')}. Profile: ${relative(ROOT, join(dir, name))}`,
    '',
    formatProfileSummary({ ...summary, files: [], inclusive: [] }),
  ].join('\n');
}

export async function profileSize(size: number, options: Options, layout: CoreLayout, load: LoadSettings): Promise<void> {
  const label = sizeLabel(size);
  const { db, keys } = await prepareSize(size, options);
  const discovery = await startThreatgate(db, options, layout, label);
  const scenarios = await discoverScenarios(discovery.port, keys, options).finally(() => stopServer(discovery));
  for (const s of scenarios) process.stdout.write(`\n${await profileScenario(s, db, options, layout, load, label)}\n`);
}
