// Graceful shutdown: stop accepting, let in-flight requests finish (bounded), close the store, exit 0.
import assert from 'node:assert/strict';
import { Agent, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createDrainableServer } from '../../src/cli/serve-command.js';
import { loadConfig } from '../../src/config.js';
import { startCli } from '../helpers/cli-process.js';
import { seedDatabase } from '../helpers/gateway-instances.js';
import { storeBackends, type Backend } from '../helpers/store-backends.js';
import { GENEROUS_PLANS } from '../helpers/test-app.js';
import { startTcpProxy, throughProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

const DATABASE_URL = process.env.TEST_DATABASE_URL;

function get(port: number, agent?: Agent): Promise<{ res: IncomingMessage; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path: '/', agent: agent ?? false }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ res, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

function connectionRefused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(false)));
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

/**
 * A server whose handler waits until the test releases it. Like `serve`, it keeps idle connections
 * open far longer than any test runs (65 s), so only the drain can close them in time.
 */
async function gatedServer() {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let entered!: () => void;
  const inHandler = new Promise<void>((resolve) => (entered = resolve));
  const drainable = createDrainableServer((_req, res) => {
    entered();
    void gate.then(() => res.end('done'));
  });
  drainable.server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => drainable.server.listen(0, '127.0.0.1', resolve));
  const address = drainable.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { ...drainable, port, release, inHandler };
}

describe('draining the server on shutdown', () => {
  it('with a request in flight › refuses new connections, lets it finish with Connection: close, then resolves', async () => {
    const server = await gatedServer();
    const agent = new Agent({ keepAlive: true });
    const pending = get(server.port, agent);
    await server.inHandler;
    const drained = server.drain(5000);
    assert.equal(server.inFlight(), 1);
    assert.equal(await connectionRefused(server.port), true);
    server.release();
    const { res, body } = await pending;
    assert.equal(res.statusCode, 200);
    assert.equal(body, 'done');
    assert.equal(res.headers.connection, 'close');
    assert.equal(await drained, 'drained');
    agent.destroy();
  });

  it('with several requests in flight, finishing in any order › counts each out once, and closes the connections of those still in flight', async () => {
    const held: ServerResponse[] = [];
    let arrived!: () => void;
    const allArrived = new Promise<void>((resolve) => (arrived = resolve));
    const drainable = createDrainableServer((_req, res) => {
      held.push(res);
      if (held.length === 3) arrived();
    });
    await new Promise<void>((resolve) => drainable.server.listen(0, '127.0.0.1', resolve));
    const port = (drainable.server.address() as { port: number }).port;
    const agent = new Agent({ keepAlive: true });
    const pending = [get(port, agent), get(port, agent), get(port, agent)];
    await allArrived;
    assert.equal(drainable.inFlight(), 3);
    // The first to arrive finishes first: the last in the list takes its place.
    const [first, second, third] = held as [ServerResponse, ServerResponse, ServerResponse];
    first.end('first');
    await pending[0];
    assert.equal(drainable.inFlight(), 2);
    const drained = drainable.drain(5000);
    third.end('third');
    await pending[2];
    assert.equal(drainable.inFlight(), 1);
    second.end('second');
    const answers = await Promise.all(pending);
    assert.equal(drainable.inFlight(), 0);
    assert.deepEqual(answers.map(({ body }) => body), ['first', 'second', 'third']);
    // Answered after the drain began: told to close.
    assert.deepEqual(answers.map(({ res }) => res.headers.connection), ['keep-alive', 'close', 'close']);
    assert.equal(await drained, 'drained');
    agent.destroy();
  });

  it('with an idle kept-alive connection › closes it and resolves before the grace period ends', async () => {
    const server = await gatedServer();
    server.release();
    const agent = new Agent({ keepAlive: true });
    await get(server.port, agent);
    assert.equal(Object.values(agent.freeSockets).flat().length, 1, 'the client keeps the connection for its next request: only the server can close it');
    assert.equal(await server.drain(5000), 'drained', 'the drain waited for the idle connection until the grace period ended');
    agent.destroy();
  });

  it('with a request that outlasts the grace period › keeps it until the period ends, then cuts it', async () => {
    const server = await gatedServer();
    const events: string[] = [];
    const pending = get(server.port).then(
      () => 'answered',
      (error: NodeJS.ErrnoException) => error.code,
    );
    void pending.then((outcome) => events.push(`request ${outcome}`));
    await server.inHandler;
    const drained = server.drain(300);
    assert.equal(server.inFlight(), 1);
    void drained.then((outcome) => events.push(`drain ${outcome}`));
    assert.equal(await drained, 'timed out');
    assert.equal(await pending, 'ECONNRESET');
    assert.deepEqual(events, ['drain timed out', 'request ECONNRESET'], 'the request was cut before the grace period ended');
  });
});

describe('threatgate serve (built) on SIGTERM with a request in flight', { skip: DATABASE_URL ? false : 'set TEST_DATABASE_URL to hold a request in flight through a paused PostgreSQL proxy' }, () => {
  let backend: Backend;
  let proxy: TcpProxy;
  let db: string;
  before(async () => {
    backend = storeBackends().find((b) => b.name === 'PostgreSQL')!;
    const seeded = await seedDatabase(backend, loadConfig({ overrides: GENEROUS_PLANS }));
    const target = new URL(DATABASE_URL!);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    db = throughProxy(seeded.location, proxy);
  });
  after(async () => {
    await proxy.close();
    await backend.cleanup();
  });

  for (const workers of [1, 2]) {
    it(`with --workers ${workers} › finishes the request with 200, then exits 0`, async () => {
      // --no-pull: the background puller's own queries would otherwise be what the paused proxy holds first.
      const server = startCli(['serve', '--port', '0', '--workers', String(workers), '--no-pull', '--db', db]);
      const url = await server.ready;

      // The database stops answering: the request waits in the store, in flight.
      proxy.pause();
      const response = fetch(`${url}/api/threat.php?tid=1`);
      const inFlight = () => server.stderr().includes('"inFlight":1');
      // Signalled once the request's query is held by the paused proxy, so it is surely in flight.
      await proxy.holding();
      server.child.kill('SIGTERM');
      for (let i = 0; i < 50 && !inFlight(); i++) await new Promise((resolve) => setTimeout(resolve, 50));
      assert.ok(inFlight(), `a worker reported the request in flight when the signal came:\n${server.stderr()}`);
      proxy.resume();

      const res = await response;
      assert.equal(res.status, 200);
      assert.equal(((await res.json()) as { tid: number }).tid, 1);
      assert.equal(await server.exited, 0, server.stderr());
    });
  }
});
