// The server's limits (config `server`): connections past maxConnections are closed at once, and a client
// that sends its headers slowly, or nothing, is answered 408 and closed soon after headersTimeout.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { createDrainableServer } from '../../src/cli/serve-command.js';
import { KEEP_ALIVE_TIMEOUT_MS } from '../../src/cli/server-limits.js';
import { loadConfig } from '../../src/config.js';
import { startCli } from '../helpers/cli-process.js';
import { seedDatabase } from '../helpers/gateway-instances.js';
import { storeBackends, type Backend } from '../helpers/store-backends.js';

const LIMITS = { maxConnections: 2, headersTimeoutSeconds: 1, requestTimeoutSeconds: 2 };

interface Watched {
  socket: Socket;
  received: () => string;
  /** Milliseconds from the start of the test to the close (resolves when the server closes it). */
  closed: Promise<number>;
}

function open(port: number, started: number, send?: string): Promise<Watched> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
    socket.on('error', () => undefined);
    const closed = new Promise<number>((done) => socket.once('close', () => done(Date.now() - started)));
    socket.once('connect', () => {
      if (send !== undefined) socket.write(send);
      resolve({ socket, received: () => text, closed });
    });
    socket.once('error', reject);
  });
}

const within = <T>(promise: Promise<T>, ms: number, what: string) =>
  Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms).unref())]);

for (const inClusterWorker of [false, true]) {
  describe(`the HTTP server's limits (${inClusterWorker ? 'a cluster worker' : 'a single process'})`, () => {
    let server: Server;
    let port: number;
    const sockets: Socket[] = [];
    const start = async () => {
      ({ server } = createDrainableServer((_req, res) => res.end('ok'), { limits: LIMITS, inClusterWorker }));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as { port: number }).port;
    };
    afterEach(async () => {
      for (const socket of sockets.splice(0)) socket.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });

    it('closes a connection past maxConnections at once, and takes new ones when others have closed', async () => {
      await start();
      const started = Date.now();
      const held = [await open(port, started, 'GET / HTTP/1.1\r\n'), await open(port, started, 'GET / HTTP/1.1\r\n')];
      sockets.push(...held.map((w) => w.socket));
      const extra = await open(port, started, 'GET / HTTP/1.1\r\nHost: x\r\n\r\n');
      sockets.push(extra.socket);
      await within(extra.closed, 500, 'the extra connection closed');
      assert.equal(extra.received(), '', 'the extra connection was answered');
      for (const w of held) w.socket.destroy();
      await Promise.all(held.map((w) => w.closed));
      // The server sees the closes a moment after the client does.
      await new Promise((resolve) => setTimeout(resolve, 50));
      const next = await open(port, started, 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      await within(next.closed, 1000, 'the next request answered');
      assert.match(next.received(), /^HTTP\/1\.1 200 OK/);
    });

    it('answers 408 to a client that sends its headers slowly, or nothing, and closes it within ~1 s after headersTimeout', async () => {
      await start();
      const started = Date.now();
      const slow = await open(port, started, 'GET / HTTP/1.1\r\nHost: x\r\n');
      const silent = await open(port, started);
      sockets.push(slow.socket, silent.socket);
      const drip = setInterval(() => slow.socket.write('X-Drip: 1\r\n'), 200);
      try {
        for (const w of [slow, silent]) {
          const ms = await within(w.closed, LIMITS.headersTimeoutSeconds * 1000 + 2500, 'the slow client closed');
          assert.ok(ms >= LIMITS.headersTimeoutSeconds * 1000 - 50, `closed after ${ms} ms, before headersTimeout`);
          assert.match(w.received(), /^HTTP\/1\.1 408 Request Timeout/);
        }
      } finally {
        clearInterval(drip);
      }
    });

    it('keeps an idle kept-alive connection past headersTimeout, for the next request', async () => {
      await start();
      const started = Date.now();
      const client = await open(port, started, 'GET / HTTP/1.1\r\nHost: x\r\n\r\n');
      sockets.push(client.socket);
      await new Promise((resolve) => setTimeout(resolve, LIMITS.headersTimeoutSeconds * 1000 + 1500));
      client.socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(client.received().match(/HTTP\/1\.1 200 OK/g)?.length, 2);
      assert.equal(server.keepAliveTimeout, KEEP_ALIVE_TIMEOUT_MS);
    });
  });
}

describe('threatgate serve applies config server (built)', () => {
  let dir: string;
  let backend: Backend;
  let db: string;
  let configFile: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'threatgate-limits-'));
    backend = storeBackends()[0]!;
    db = (await seedDatabase(backend, loadConfig())).location;
    configFile = join(dir, 'config.json');
    writeFileSync(configFile, JSON.stringify({ server: { maxConnections: 1, headersTimeoutSeconds: 1, requestTimeoutSeconds: 2 } }));
  });
  after(async () => {
    await backend.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const workers of [1, 2]) {
    it(`with --workers ${workers}: each process holds one connection, closes the next at once, and answers a slow client 408`, async () => {
      const cli = startCli(['serve', '--workers', String(workers), '--port', '0', '--db', db, '--config', configFile, '--no-pull'], { LOG_LEVEL: 'warn' });
      try {
        const port = Number(new URL(await cli.ready).port);
        const started = Date.now();
        // The primary hands connections to the workers in turn: one each, then the next is one too many.
        const held: Watched[] = [];
        for (let i = 0; i < workers; i++) held.push(await open(port, started, 'GET / HTTP/1.1\r\nHost: x\r\n'));
        await new Promise((resolve) => setTimeout(resolve, 100));
        const extra = await open(port, started, 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
        await within(extra.closed, 1000, 'the extra connection closed');
        assert.equal(extra.received(), '');
        for (const w of held) {
          const ms = await within(w.closed, 4000, 'the slow client closed');
          assert.ok(ms >= 950, `closed after ${ms} ms`);
          assert.match(w.received(), /^HTTP\/1\.1 408 Request Timeout/);
        }
      } finally {
        cli.child.kill('SIGTERM');
        await cli.exited;
      }
    });
  }
});

describe('config server', () => {
  it('defaults to 10,000 connections, 5 s for the headers and 30 s for the whole request', () => {
    assert.deepEqual(loadConfig().server, { maxConnections: 10_000, headersTimeoutSeconds: 5, requestTimeoutSeconds: 30 });
  });

  it('refuses a headersTimeoutSeconds longer than requestTimeoutSeconds, naming the keys', () => {
    assert.throws(() => loadConfig({ overrides: { server: { headersTimeoutSeconds: 60, requestTimeoutSeconds: 30 } } }), /server\.headersTimeoutSeconds must not exceed server\.requestTimeoutSeconds/);
  });
});
