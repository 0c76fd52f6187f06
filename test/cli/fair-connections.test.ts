// One address cannot take every connection (server.maxConnectionsPerAddress): its extra sockets are closed at once,
// other clients are served meanwhile, a proxy that trustProxy trusts is held to maxConnections alone, and an idle socket
// that never sends its headers is closed after headersTimeout.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { createDrainableServer } from '../../src/cli/serve-command.js';
import { connectionsPerAddress } from '../../src/cli/server-limits.js';
import { loadConfig } from '../../src/config.js';
import { getOnNewConnection, startCli } from '../helpers/cli-process.js';
import { seedDatabase } from '../helpers/gateway-instances.js';
import { storeBackends, type Backend } from '../helpers/store-backends.js';

/** The whole of 127/8 is loopback on Linux: each of these is another client address. */
const FLOODER = '127.0.0.2';
const PROXY = '127.0.0.3';
const OTHER = '127.0.0.4';
const HEALTHZ = 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n';

interface Client {
  socket: Socket;
  received: () => string;
  closed: Promise<void>;
}

/** A connection from `localAddress`, writing `send` once connected (nothing: an idle socket). */
function open(port: number, localAddress: string, send?: string): Promise<Client> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress });
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    socket.once('error', reject);
    socket.once('connect', () => {
      socket.removeListener('error', reject);
      socket.on('error', () => undefined);
      if (send !== undefined) socket.write(send);
      resolve({ socket, received: () => text, closed });
    });
  });
}

const openMany = (count: number, port: number, from: string, send?: string) => Promise.all(Array.from({ length: count }, () => open(port, from, send)));

/** Resolves once `client` has an answer, or has been closed without one; says which. */
async function answered(client: Client, timeoutMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (/^HTTP\/1\.1 200 /.test(client.received())) return true;
    if (client.socket.destroyed || client.socket.readableEnded) return client.received() !== '';
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.fail('neither answered nor closed within 10 s');
}

async function countAnswered(clients: Client[]): Promise<number> {
  return (await Promise.all(clients.map((c) => answered(c)))).filter(Boolean).length;
}

describe('the per-address default', () => {
  it('is a twentieth of maxConnections, and at least 16', () => {
    const limits = { maxConnections: 10_000, headersTimeoutSeconds: 5, requestTimeoutSeconds: 30 };
    assert.equal(connectionsPerAddress(limits), 500);
    assert.equal(connectionsPerAddress({ ...limits, maxConnections: 50 }), 16);
    assert.equal(connectionsPerAddress({ ...limits, maxConnectionsPerAddress: 7 }), 7);
    assert.equal(loadConfig().server.maxConnectionsPerAddress, undefined);
  });

  it('refuses a maxConnectionsPerAddress below 1, naming the key', () => {
    assert.throws(() => loadConfig({ overrides: { server: { maxConnectionsPerAddress: 0 } } }), /server\.maxConnectionsPerAddress/);
  });
});

for (const inClusterWorker of [false, true]) {
  describe(`connections per address (${inClusterWorker ? 'a cluster worker' : 'a single process'})`, () => {
    let server: Server;
    let port: number;
    const clients: Client[] = [];
    const start = async (isProxy?: (address: string) => boolean) => {
      const limits = { maxConnections: 20, maxConnectionsPerAddress: 4, headersTimeoutSeconds: 30, requestTimeoutSeconds: 30 };
      ({ server } = createDrainableServer((_req, res) => res.end('ok'), { limits, inClusterWorker, ...(isProxy ? { isProxy } : {}) }));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as { port: number }).port;
    };
    const track = (opened: Client[]) => (clients.push(...opened), opened);
    afterEach(async () => {
      for (const client of clients.splice(0)) client.socket.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });

    it('holds maxConnectionsPerAddress from one address, closes its next ones at once, and serves another address', async () => {
      await start();
      const flood = track(await openMany(10, port, FLOODER, HEALTHZ));
      assert.equal(await countAnswered(flood), 4);
      const other = track(await openMany(4, port, OTHER, HEALTHZ));
      assert.equal(await countAnswered(other), 4);
      // A closed socket gives its place back.
      const held = flood.filter((c) => /^HTTP\/1\.1 200 /.test(c.received()));
      held[0]!.socket.destroy();
      await held[0]!.closed;
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(await countAnswered(track([await open(port, FLOODER, HEALTHZ)])), 1);
    });

    it('holds a proxy to maxConnections alone', async () => {
      await start((address) => address === PROXY);
      const proxied = track(await openMany(25, port, PROXY, HEALTHZ));
      assert.equal(await countAnswered(proxied), 20);
    });
  });
}

describe('threatgate serve shares its connections fairly (built)', () => {
  let dir: string;
  let backend: Backend;
  let db: string;
  const HEADERS_SECONDS = 3;
  const writeConfig = (name: string, extra: object) => {
    const file = join(dir, name);
    const server = { maxConnections: 50, maxConnectionsPerAddress: 10, headersTimeoutSeconds: HEADERS_SECONDS, requestTimeoutSeconds: 10 };
    writeFileSync(file, JSON.stringify({ server, ...extra }));
    return file;
  };
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'threatgate-fair-'));
    backend = storeBackends()[0]!;
    db = (await seedDatabase(backend, loadConfig())).location;
  });
  after(async () => {
    await backend.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  const serve = async (configFile: string, workers: number, run: (port: number, base: string) => Promise<void>) => {
    const cli = startCli(['serve', '--workers', String(workers), '--port', '0', '--db', db, '--config', configFile, '--no-pull'], { LOG_LEVEL: 'warn' });
    try {
      const base = await cli.ready;
      await run(Number(new URL(base).port), base);
    } finally {
      cli.child.kill('SIGTERM');
      await cli.exited;
    }
  };

  for (const workers of [1, 2]) {
    it(`with --workers ${workers}: 60 idle sockets from one address hold 10 slots a process, another address is served at once, the idle ones are closed after headersTimeout`, async () => {
      await serve(writeConfig(`fair-${workers}.json`, {}), workers, async (port, base) => {
        const flood = await openMany(60, port, FLOODER);
        try {
          // Without the per-address cap these 60 would fill every slot (50 a process) and refuse the next client.
          const res = await getOnNewConnection(base, '/healthz');
          assert.equal(res.status, 200);
          // Each held socket is answered 408 and closed after headersTimeout (with a generous bound); the rest had nothing.
          await Promise.race([
            Promise.all(flood.map((c) => c.closed)),
            new Promise((_, reject) => setTimeout(() => reject(new Error('idle sockets not closed within headersTimeout + 15 s')), HEADERS_SECONDS * 1000 + 15_000).unref()),
          ]);
          const timedOut = flood.filter((c) => /^HTTP\/1\.1 408 /.test(c.received()));
          assert.ok(timedOut.length >= 10 && timedOut.length <= 10 * workers, `${timedOut.length} sockets held until headersTimeout`);
          assert.equal(flood.filter((c) => c.received() === '').length, 60 - timedOut.length);
        } finally {
          for (const client of flood) client.socket.destroy();
        }
      });
    });
  }

  it('a proxy named in trustProxy is held to maxConnections alone; any other address to maxConnectionsPerAddress', async () => {
    await serve(writeConfig('proxy.json', { trustProxy: PROXY }), 1, async (port) => {
      const proxied = await openMany(30, port, PROXY, HEALTHZ);
      const direct = await openMany(15, port, OTHER, HEALTHZ);
      try {
        assert.equal(await countAnswered(proxied), 30);
        assert.equal(await countAnswered(direct), 10);
      } finally {
        for (const client of [...proxied, ...direct]) client.socket.destroy();
      }
    });
  });
});
