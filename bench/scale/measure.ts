// The scale bench's measurements against a built store: re-pulls, the mixed load during a pull, a TAXII walk, the export, the lifecycle, RSS.
import { request } from 'node:http';
import { get } from '../http/client.js';
import { freePort, startServer, stopServer, treeRssByPid, type Server } from '../http/processes.js';
import type { FeedServer } from './feed-server.js';
import { runMixedLoad, type KindStats, type LoadKind } from './mixed-load.js';
import { CLI, parsePullLines, runCli, runLifecycle, type PullLine, type StoreLocation } from './store.js';

/** The Indicators collection of config/default.json: everything the store holds (docs/taxii.md). */
export const INDICATORS_COLLECTION = 'a5cffbfe-c0ff-4842-a235-cb3a7a040a37';
const TAXII_MEDIA_TYPE = 'application/taxii+json;version=2.1';

/** VmRSS of each process of serve's tree, in MB, by pid. */
export function serveRss(serve: Server): Map<number, number> {
  return treeRssByPid(serve.child.pid!);
}

export async function startServe(location: StoreLocation, workers: number, config: string, logFile: string): Promise<Server> {
  const port = await freePort();
  return startServer({
    name: 'threatgate serve',
    command: process.execPath,
    args: [CLI, 'serve', '--db', location.db, '--config', config, '--host', '127.0.0.1', '--port', String(port), '--workers', String(workers), '--no-pull'],
    cores: null,
    port,
    logFile,
    stdoutToLog: false,
    ready: async (p) => (await get(p, '/healthz')).status === 200,
  });
}

export { stopServer };

export interface RepullResult {
  /** The `feeds pull` process's wall time, start-up included: what an operator waits for. */
  seconds: number;
  line: PullLine;
}

/** `feeds pull FID` once, timed from outside. */
export async function repull(location: StoreLocation, fid: number): Promise<RepullResult> {
  const run = await runCli(['feeds', 'pull', String(fid), '--db', location.db]);
  const line = parsePullLines(run.stdout)[0];
  if (run.code !== 0 || line === undefined) throw new Error(`feeds pull ${fid} failed (exit ${run.code}):\n${run.stdout.trim()}\n${run.stderr.trim()}`);
  return { seconds: run.seconds, line };
}

export interface LoadDuringPull {
  kinds: KindStats[];
  pull: RepullResult;
  /** Seconds of the load during which the pull ran. */
  overlapSeconds: number;
  rate: number;
  seconds: number;
}

/**
 * The mixed load for `seconds` while the second biggest list, now with a tenth of its values changed, is pulled in
 * the background by another process: the write a scheduled pull makes, beside the serving processes' reads.
 */
export async function loadDuringPull(location: StoreLocation, server: FeedServer, path: string, changedFile: string, fid: number, port: number, kinds: LoadKind[], rate: number, seconds: number): Promise<LoadDuringPull> {
  server.publish(path, changedFile);
  const started = performance.now();
  let pullEnded = 0;
  const pull = repull(location, fid).finally(() => (pullEnded = performance.now()));
  // Awaited once the load ends; a failure meanwhile must not count as an unhandled rejection.
  pull.catch(() => undefined);
  // The load's own start is a few milliseconds after `started`; the split is as close as the two processes allow.
  const stats = await runMixedLoad(port, kinds, rate, seconds, () => (pullEnded === 0 ? Infinity : pullEnded - started));
  const loadEnded = performance.now();
  const pulled = await pull;
  const overlap = (Math.min(pullEnded, loadEnded) - started) / 1000;
  return { kinds: stats, pull: pulled, overlapSeconds: overlap, rate, seconds };
}

interface TaxiiPage {
  more?: boolean;
  next?: string;
  objects?: unknown[];
}

function getJson(port: number, path: string, headers: Record<string, string>): Promise<{ status: number; body: TaxiiPage }> {
  return get(port, path, headers).then((res) => ({ status: res.status, body: JSON.parse(res.body.toString('utf8')) as TaxiiPage }));
}

export interface WalkResult {
  objects: number;
  pages: number;
  seconds: number;
  objectsPerSecond: number;
  /** True when the walk stopped at its time limit before the collection's last page. */
  stopped: boolean;
}

/** One client walks the Indicators collection from the start, 1000 objects a page, following `next` (docs/taxii.md). */
export async function taxiiWalk(port: number, key: string, maxSeconds: number): Promise<WalkResult> {
  const headers = { authorization: `Basic ${Buffer.from(`taxii2:${key}`).toString('base64')}`, accept: TAXII_MEDIA_TYPE };
  const base = `/taxii2/api/collections/${INDICATORS_COLLECTION}/objects/?limit=1000`;
  const started = performance.now();
  let objects = 0;
  let pages = 0;
  let next: string | undefined;
  do {
    const { status, body } = await getJson(port, next === undefined ? base : `${base}&next=${encodeURIComponent(next)}`, headers);
    if (status !== 200) throw new Error(`TAXII walk: page ${pages} answered ${status}`);
    pages++;
    objects += body.objects?.length ?? 0;
    next = body.more === true ? body.next : undefined;
  } while (next !== undefined && performance.now() - started < maxSeconds * 1000);
  const seconds = (performance.now() - started) / 1000;
  return { objects, pages, seconds, objectsPerSecond: objects / seconds, stopped: next !== undefined };
}

export interface ExportResult {
  seconds: number;
  lines: number;
  megabytes: number;
  /** The largest growth of any one serving process's VmRSS over its own figure before the request. */
  rssGrowthMB: number;
}

/** `GET /export/indicators.txt` read to its last byte, the serving processes' RSS sampled every 50 ms meanwhile. */
export async function fullExport(port: number, key: string, serve: Server): Promise<ExportResult> {
  const before = serveRss(serve);
  const peak = new Map(before);
  const sampler = setInterval(() => {
    for (const [pid, mb] of serveRss(serve)) peak.set(pid, Math.max(peak.get(pid) ?? 0, mb));
  }, 50);
  const started = performance.now();
  try {
    const { bytes, lines } = await new Promise<{ bytes: number; lines: number }>((done, fail) => {
      const req = request({ host: '127.0.0.1', port, path: `/export/${INDICATORS_COLLECTION}.txt`, headers: { authorization: `Basic ${Buffer.from(`taxii2:${key}`).toString('base64')}` } }, (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          fail(new Error(`export answered ${res.statusCode}`));
          return;
        }
        let bytes = 0;
        let lines = 0;
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
        });
        res.on('end', () => done({ bytes, lines }));
        res.on('error', fail);
      });
      req.on('error', fail);
      req.end();
    });
    const seconds = (performance.now() - started) / 1000;
    const growth = Math.max(0, ...[...peak].map(([pid, mb]) => mb - (before.get(pid) ?? mb)));
    return { seconds, lines, megabytes: bytes / 1e6, rssGrowthMB: growth };
  } finally {
    clearInterval(sampler);
  }
}

export { runLifecycle };
