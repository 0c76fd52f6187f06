// The HTTP benchmark's own servers: threatgate, and the replay of its recorded answers (bare node:http or bare Express).
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RecordedResponse } from '../bare-server.js';
import { get, replayableHeaders } from './client.js';
import { CLI, ROOT, type Options } from './common.js';
import { freePort, startServer, type CoreLayout, type Server } from './processes.js';
import type { Scenario } from './scenarios.js';

const BARE_SERVER = join(ROOT, 'bench', 'bare-server.ts');
const BENCH_CONFIG = join(ROOT, 'bench', 'bench-config.json');

/**
 * Which replay: `bare` is node:http alone (the ceiling), `express` the same handler in a bare Express
 * 5 app (the floor), `least` node:http doing the least work any server must do for the answers.
 */
export type ReplayKind = 'bare' | 'express' | 'least';

const REPLAY_NAMES: Record<ReplayKind, string> = { bare: 'bare server', express: 'express floor', least: 'least-work server' };
const REPLAY_FLAGS: Record<ReplayKind, string[]> = { bare: [], express: ['--express'], least: ['--least-work'] };

async function serverConfig(options: Options): Promise<string> {
  if (options.responseCache) return BENCH_CONFIG;
  const file = join(options.outDir, 'bench-config-no-response-cache.json');
  const config = JSON.parse(await readFile(BENCH_CONFIG, 'utf8')) as Record<string, unknown>;
  await writeFile(file, `${JSON.stringify({ ...config, cache: { maxEntries: 0 } }, null, 2)}\n`);
  return file;
}

export async function startThreatgate(db: string, options: Options, layout: CoreLayout, label: string, nodeFlags: string[] = []): Promise<Server> {
  const port = await freePort();
  const config = await serverConfig(options);
  return startServer({
    name: 'threatgate',
    command: process.execPath,
    args: [...nodeFlags, CLI, 'serve', '--db', db, '--config', config, '--host', '127.0.0.1', '--port', String(port), '--workers', String(options.workers)],
    cores: layout.server,
    port,
    logFile: join(options.outDir, 'logs', `threatgate-${label}.log`),
    stdoutToLog: false,
    ready: async (p) => (await get(p, '/healthz')).status === 200,
  });
}

export async function startReplay(kind: ReplayKind, responses: string, options: Options, layout: CoreLayout, label: string): Promise<Server> {
  const port = await freePort();
  return startServer({
    name: REPLAY_NAMES[kind],
    command: process.execPath,
    args: ['--import', 'tsx', BARE_SERVER, '--responses', responses, '--port', String(port), '--workers', String(options.workers), ...REPLAY_FLAGS[kind]],
    cores: layout.server,
    port,
    logFile: join(options.outDir, 'logs', `${kind}-${label}.log`),
    stdoutToLog: true,
    ready: async (p) => (await get(p, '/nothing-recorded-here')).status === 404,
  });
}

/** Records threatgate's answer to every scenario (each must be 200), for the replay servers. */
export async function recordResponses(port: number, scenarios: readonly Scenario[], file: string): Promise<RecordedResponse[]> {
  const recorded: RecordedResponse[] = [];
  for (const s of scenarios) {
    // With little data two scenarios can be one request (links page 0 is also the last but one).
    if (recorded.some((r) => r.path === s.path)) continue;
    const res = await get(port, s.path, s.headers);
    if (res.status !== 200) throw new Error(`${s.id}: threatgate answered ${res.status} to GET ${s.path}: ${res.body.toString('utf8').slice(0, 300)}`);
    recorded.push({ path: s.path, status: res.status, headers: replayableHeaders(res.rawHeaders), bodyBase64: res.body.toString('base64') });
  }
  await writeFile(file, JSON.stringify(recorded));
  return recorded;
}

/** The headers whose values the least-work server works out per request, as threatgate does. */
const COUNTED = /^(ratelimit|x-requests-remaining-\w+)$/i;

/** The header lines with the counted values blanked: the least-work server's answer then equals the recording. */
function withoutCounts(headers: readonly string[]): string[] {
  return headers.map((text, i) => (i % 2 === 1 && COUNTED.test(headers[i - 1]!) ? '' : text));
}

/**
 * A replay server must answer exactly what was recorded (Date and connection headers aside); the
 * least-work server too, but for the rate-limit values it counts itself.
 */
export async function checkReplay(server: Server, recorded: readonly RecordedResponse[], kind: ReplayKind): Promise<void> {
  const comparable = kind === 'least' ? withoutCounts : (headers: readonly string[]) => headers;
  for (const r of recorded) {
    const res = await get(server.port, r.path);
    const same =
      res.status === r.status &&
      res.body.equals(Buffer.from(r.bodyBase64, 'base64')) &&
      JSON.stringify(comparable(replayableHeaders(res.rawHeaders))) === JSON.stringify(comparable(r.headers));
    if (!same) throw new Error(`the ${server.name}'s answer to ${r.path} differs from threatgate's`);
  }
}
