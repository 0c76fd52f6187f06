// Measurement for the HTTP benchmark: per scenario the servers take turns for equal durations; medians over the rounds.
import type { Options } from './common.js';
import { quiesce, type Server } from './processes.js';
import { runWrk, type LoadSettings, type WrkRun } from './wrk.js';

/** `threatgate`, `bare`, `express`, `medallion`; a scenario's id when scenarios are measured side by side. */
export type TargetName = string;

export interface Target {
  name: TargetName;
  server: Server;
  path: string;
  headers: Record<string, string>;
}

export interface Figures {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  runs: WrkRun[];
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function figures(runs: WrkRun[]): Figures {
  return {
    rps: median(runs.map((r) => r.rps)),
    p50Ms: median(runs.map((r) => r.p50Ms)),
    p99Ms: median(runs.map((r) => r.p99Ms)),
    errors: runs.reduce((n, r) => n + r.errors, 0),
    runs,
  };
}

/** a req/s ÷ b req/s; null when either was not measured or b completed no request. */
export function ratio(a: Figures | undefined, b: Figures | undefined): number | null {
  return a && b && b.rps > 0 ? a.rps / b.rps : null;
}

/** One wrk run against a target, once every server is idle. */
async function loadTarget(t: Target, seconds: number, servers: readonly Server[], load: LoadSettings): Promise<WrkRun> {
  await quiesce(servers);
  return runWrk(t.server.port, t.path, t.headers, seconds, load);
}

/** Warm-up, then `rounds` rounds; each round runs every target once, in alternating order (A B, B A, …). */
export async function measure(targets: readonly Target[], options: Options, load: LoadSettings): Promise<Map<TargetName, Figures>> {
  const servers = targets.map((t) => t.server);
  if (options.warmup > 0) for (const t of targets) await loadTarget(t, options.warmup, servers, load);
  const runs = new Map<TargetName, WrkRun[]>(targets.map((t) => [t.name, []]));
  for (let round = 0; round < options.rounds; round++) {
    const order = round % 2 === 0 ? targets : [...targets].reverse();
    for (const t of order) runs.get(t.name)!.push(await loadTarget(t, options.duration, servers, load));
  }
  return new Map([...runs].map(([name, list]) => [name, figures(list)]));
}
