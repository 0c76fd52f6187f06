// A bare node:http server (or with --express, a bare Express 5 app) that replays recorded threatgate responses byte for byte: http-bench.ts's ceiling and Express floor.
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

interface Reply {
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

function listen(replies: Map<string, Reply>, port: number, host: string, useExpress: boolean): Promise<number> {
  let server;
  if (useExpress) {
    // Built as threatgate builds its server: objects born with the app's prototypes.
    const app = expressApp(replies);
    server = createServer(expressMessageClasses(app), app);
  } else server = createServer(handler(replies));
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
    },
  });
  if (!values.responses) {
    process.stderr.write('Usage: node --import tsx bench/bare-server.ts --responses FILE.json [--port N] [--host H] [--workers N] [--express]\n');
    process.exitCode = 1;
    return;
  }
  const workers = Number(values.workers);
  if (cluster.isPrimary && workers > 1) {
    // Workers share the port: with a fixed port the primary's listening event reports it.
    runPrimary(workers, values.host);
    return;
  }
  const port = await listen(loadReplies(values.responses), Number(values.port), values.host, values.express);
  if (cluster.isPrimary) process.stdout.write(`listening on http://${values.host}:${port}\n`);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    process.stderr.write(`bare-server: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
