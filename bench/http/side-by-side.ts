// `--side-by-side`: the chosen scenarios measured against one another on one threatgate, each round
// running every scenario once in alternating order (measure.ts), so that a load that drifts over the
// run falls on all of them alike. For comparing two lookups of the same server (the indicator lookup: the value
// lookup against the threat lookup), where measuring one scenario after another would compare times.
import { log, ms, num, sizeLabel, type Options } from './common.js';
import { prepareSize } from './data.js';
import { measure, type Target } from './measure.js';
import { stopServer, type CoreLayout } from './processes.js';
import { discoverScenarios } from './scenarios.js';
import { startThreatgate } from './servers.js';
import type { LoadSettings } from './wrk.js';

const change = (value: number, base: number) => `${value >= base ? '+' : ''}${(((value - base) / base) * 100).toFixed(1)}%`;

/** The markdown table of one size: each scenario's median req/s, p50 and p99, and each against the first scenario. */
export async function sideBySide(size: number, options: Options, layout: CoreLayout, load: LoadSettings): Promise<string> {
  const label = sizeLabel(size);
  const { db, keys } = await prepareSize(size, options);
  const server = await startThreatgate(db, options, layout, label);
  try {
    const scenarios = await discoverScenarios(server.port, keys, options);
    const targets: Target[] = scenarios.map((s) => ({ name: s.id, server, path: s.path, headers: s.headers }));
    log(`measuring side by side: ${targets.map((t) => t.name).join(', ')} × ${options.rounds} rounds of ${options.duration} s …`);
    const measured = await measure(targets, options, load);
    const base = measured.get(targets[0]!.name)!;
    const rows = targets.map((t) => {
      const f = measured.get(t.name)!;
      return `| ${t.name} | ${num(f.rps)} | ${ms(f.p50Ms)} | ${ms(f.p99Ms)} | ${change(f.rps, base.rps)} | ${change(f.p99Ms, base.p99Ms)} |`;
    });
    return [
      `### ${label} indicators, side by side (medians of ${options.rounds} rounds)`,
      '',
      `| scenario | req/s | p50 ms | p99 ms | req/s vs ${targets[0]!.name} | p99 vs ${targets[0]!.name} |`,
      '|---|---:|---:|---:|---:|---:|',
      ...rows,
    ].join('\n');
  } finally {
    await stopServer(server);
  }
}
