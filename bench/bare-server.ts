// A bare node:http server (or with --express, a bare Express 5 app) that replays recorded threatgate responses byte for byte: http-bench.ts's ceiling and Express floor.
// With --least-work it also does the least any server must do for those answers (finds the key, counts its three windows, writes their values, logs a line).
import cluster from 'node:cluster';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import express from 'express';
import { expressMessageClasses } from '../src/http/express-server.js';

/** One recorded response, as http-bench.ts writes it: the request path with its query, and what came back. */
export interface RecordedResponse {
  path: string;
  status: number;
  /** Raw header lines, name and value alternating, in threatgate's order (Date and connection headers left out). */
  headers: string[];
  bodyBase64: string;
}

/** Same as threatgate's serve: the socket outlives the load generator's pauses, and the Keep-Alive header matches. */
const KEEP_ALIVE_MS = 65_000;

/** Headers that node:http writes itself, per response: recording them would send them twice. */
export const PER_CONNECTION_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

export interface Reply {
  status: number;
  headers: string[];
  body: Buffer;
}

function loadReplies(file: string): Map<string, Reply> {
  const recorded = JSON.parse(readFileSync(file, 'utf8')) as RecordedResponse[];
  return new Map(recorded.map((r) => [r.path, { status: r.status, headers: r.headers, body: Buffer.from(r.bodyBase64, 'base64') }]));
}

function handler(replies: Map<string, Reply>) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const reply = replies.get(req.url ?? '');
    if (!reply) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not recorded\n');
      return;
    }
    // A flat [name, value, ...] array keeps the recorded order, duplicates and letter case.
    res.writeHead(reply.status, reply.headers).end(reply.body);
  };
}

/** A key's rate-limit windows, as its answers' RateLimit-Policy lines give them, and its counts. */
interface LeastWorkClient {
  id: string;
  windows: { name: string; header: string; limit: number; seconds: number; start: number; count: number }[];
}

const STARTED = Symbol('started');
const CLIENT = Symbol('client');

/** A response of the least-work server, with what its log line needs. */
type LeastWorkResponse = ServerResponse & { [STARTED]: number; [CLIENT]: LeastWorkClient | undefined };

/** A recorded RateLimit-Policy line: the window's name, limit, seconds and the key's partition key. */
const POLICY = /^"(\w+)"; q=(\d+); w=(\d+); pk=:([^:]+):$/;

/** The API key a request carries: `key=` in the query, or HTTP Basic `taxii2:KEY`. */
function keyOf(req: IncomingMessage): string | undefined {
  const url = req.url ?? '';
  const q = url.indexOf('?');
  if (q !== -1) {
    const found = /(?:^|&)key=([^&]*)/.exec(url.slice(q + 1));
    if (found) return found[1];
  }
  const auth = req.headers.authorization;
  if (auth?.startsWith('Basic ')) {
    const pair = Buffer.from(auth.slice(6), 'base64').toString('utf8');
    return pair.slice(pair.indexOf(':') + 1);
  }
  return undefined;
}

/** A client for a key first seen on `reply`: its windows from the reply's RateLimit-Policy lines, none counted yet. */
function clientFrom(reply: Reply): LeastWorkClient {
  const windows: LeastWorkClient['windows'] = [];
  let pk = '';
  for (let i = 0; i < reply.headers.length; i += 2) {
    if (reply.headers[i]!.toLowerCase() !== 'ratelimit-policy') continue;
    const [, name, limit, seconds, partition] = POLICY.exec(reply.headers[i + 1]!) ?? [];
    if (!name) continue;
    pk = partition!;
    windows.push({ name, header: `X-Requests-Remaining-${name[0]!.toUpperCase()}${name.slice(1)}`, limit: Number(limit), seconds: Number(seconds), start: 0, count: 0 });
  }
  return { id: `k_${pk.slice(0, 12)}`, windows };
}

/**
 * The least work: what any server giving these answers must do per request besides sending them,
 * written as plainly as it can be, without a framework: find the client by its key (a key is known
 * from its first request on, with the windows its answer's RateLimit-Policy lines name), count the
 * request in each of the key's fixed windows and write the RateLimit and X-Requests-Remaining values
 * anew, and log one JSON line per request (the key redacted from the URL) to stderr (`writeLog`), in one write
 * per turn of the event loop. What threatgate does besides (hashing and checking the key, metrics,
 * the plan gate, media types, errors, Express's request objects) it leaves out: threatgate ÷ least
 * work is what all that costs.
 */
export function leastWorkHandler(replies: Map<string, Reply>, writeLog: (text: string) => void = (text) => process.stderr.write(text)) {
  const clients = new Map<string, LeastWorkClient>();
  let lines: string[] = [];
  const flush = () => {
    const text = lines.join('');
    lines = [];
    writeLog(text);
  };
  // The time as the log writes it, made once per millisecond: a busy server's lines share it.
  let lastMs = -1;
  let lastIso = '';
  const isoNow = () => {
    const now = Date.now();
    if (now !== lastMs) {
      lastMs = now;
      lastIso = new Date(now).toISOString();
    }
    return lastIso;
  };
  // One listener for every response, what it logs kept on the response: no closure per request.
  function finished(this: LeastWorkResponse) {
    const ms = Math.round((performance.now() - this[STARTED]) * 1000) / 1000;
    const client = this[CLIENT];
    if (lines.length === 0) setImmediate(flush);
    lines.push(
      `{"time":"${isoNow()}","level":"info","pid":${process.pid},"msg":"request","method":"${this.req.method}",` +
        `"url":${JSON.stringify(this.req.url!.replace(/([?&]key=)[^&]*/, '$1[redacted]'))},"status":${this.statusCode},"ms":${ms},` +
        `"client":${client ? `"${client.id}"` : 'null'},"ip":"${this.req.socket.remoteAddress}"}\n`,
    );
  }
  return (req: IncomingMessage, res: ServerResponse) => {
    const started = performance.now();
    const url = req.url ?? '';
    const reply = replies.get(url);
    if (!reply) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not recorded\n');
      return;
    }
    const key = keyOf(req);
    let client = key === undefined ? undefined : clients.get(key);
    if (key !== undefined && client === undefined) {
      client = clientFrom(reply);
      clients.set(key, client);
    }
    let headers = reply.headers;
    if (client && client.windows.length > 0) {
      headers = headers.slice();
      const now = Date.now() / 1000;
      let limitAt = 0;
      for (const w of client.windows) {
        const start = Math.floor(now / w.seconds) * w.seconds;
        if (w.start !== start) {
          w.start = start;
          w.count = 0;
        }
        const remaining = Math.max(0, w.limit - ++w.count);
        // The recorded order: the RateLimit lines in window order, then each window's X-Requests-Remaining.
        for (let i = limitAt; i < headers.length; i += 2) {
          if (headers[i] === 'RateLimit') {
            headers[i + 1] = `"${w.name}"; r=${remaining}; t=${Math.ceil(start + w.seconds - now)}`;
            limitAt = i + 2;
            break;
          }
        }
        const at = headers.indexOf(w.header);
        if (at !== -1) headers[at + 1] = String(remaining);
      }
    }
    const logged = res as LeastWorkResponse;
    logged[STARTED] = started;
    logged[CLIENT] = client;
    res.on('finish', finished);
    res.writeHead(reply.status, headers).end(reply.body);
  };
}

/**
 * The Express floor: the same handler as the only layer of an Express 5 app, with nothing that
 * adds headers (no ETag, no X-Powered-By): what Express itself costs per request.
 */
function expressApp(replies: Map<string, Reply>) {
  const app = express();
  app.set('etag', false);
  app.disable('x-powered-by');
  app.use(handler(replies));
  return app;
}

/** What the server does: replay (`bare`), replay through Express (`express`), or replay with the least work (`least`). */
type Mode = 'bare' | 'express' | 'least';

function listen(replies: Map<string, Reply>, port: number, host: string, mode: Mode): Promise<number> {
  let server;
  if (mode === 'express') {
    // Built as threatgate builds its server: objects born with the app's prototypes.
    const app = expressApp(replies);
    server = createServer(expressMessageClasses(app), app);
  } else server = createServer(mode === 'least' ? leastWorkHandler(replies) : handler(replies));
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  process.once('SIGTERM', () => server.close(() => process.exit(0)).closeAllConnections());
  return new Promise((done, fail) => {
    server.once('error', fail);
    server.listen(port, host, () => {
      const address = server.address();
      done(typeof address === 'object' && address ? address.port : port);
    });
  });
}

/** The primary forks the workers, prints the ready line once all listen, and passes SIGTERM on. */
function runPrimary(workers: number, host: string): void {
  let listening = 0;
  let exited = 0;
  let stopping = false;
  cluster.on('listening', (_worker, address) => {
    if (++listening === workers) process.stdout.write(`listening on http://${host}:${address.port}\n`);
  });
  cluster.on('exit', (worker, code) => {
    if (code !== 0 && !stopping) process.stderr.write(`bare-server: worker ${worker.process.pid} exited with ${code}\n`);
    if (++exited === workers) process.exit(0);
  });
  process.once('SIGTERM', () => {
    stopping = true;
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
  });
  for (let i = 0; i < workers; i++) cluster.fork();
}

async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      responses: { type: 'string' },
      port: { type: 'string', default: '0' },
      host: { type: 'string', default: '127.0.0.1' },
      workers: { type: 'string', default: '1' },
      express: { type: 'boolean', default: false },
      'least-work': { type: 'boolean', default: false },
    },
  });
  if (!values.responses || (values.express && values['least-work'])) {
    process.stderr.write('Usage: node --import tsx bench/bare-server.ts --responses FILE.json [--port N] [--host H] [--workers N] [--express | --least-work]\n');
    process.exitCode = 1;
    return;
  }
  const workers = Number(values.workers);
  if (cluster.isPrimary && workers > 1) {
    // Workers share the port: with a fixed port the primary's listening event reports it.
    runPrimary(workers, values.host);
    return;
  }
  const mode: Mode = values.express ? 'express' : values['least-work'] ? 'least' : 'bare';
  const port = await listen(loadReplies(values.responses), Number(values.port), values.host, mode);
  if (cluster.isPrimary) process.stdout.write(`listening on http://${values.host}:${port}\n`);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    process.stderr.write(`bare-server: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
