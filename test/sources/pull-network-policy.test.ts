// Pulls and where they may connect (docs/security.md, "Where a pull may connect"): a feed on a public host cannot lead a pull into loopback,
// private or link-local networks, by a redirect or by DNS, on the first request or any later one; a source allowed
// there reaches them. Real HTTP: a fixture server on a public-class address of this machine, a loopback fixture
// server, and a resolver the test controls. SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import type { LookupAddress } from 'node:dns';
import { networkInterfaces } from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import type { ResolveHost } from '../../src/sources/transports/guarded-agent.js';
import { classifyAddress } from '../../src/sources/transports/network-policy.js';
import { addressLines, startFeedServer, type FeedServer } from '../helpers/feed-server.js';
import { assertSameStore, openPullWorld, snapshotStore, type PullWorld } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';

/** An address of this machine that the policy classes as public, so a "public" upstream never leaves the machine. */
function publicLocalAddress(): { address: string; remove(): void } | undefined {
  for (const list of Object.values(networkInterfaces())) {
    for (const entry of list ?? []) {
      if (entry.family === 'IPv4' && classifyAddress(entry.address) === 'public') return { address: entry.address, remove: () => undefined };
    }
  }
  // None: give the loopback interface one from TEST-NET-2 (RFC 5737), which needs root (CI runs as root).
  const address = '198.51.100.77';
  try {
    execFileSync('ip', ['addr', 'add', `${address}/32`, 'dev', 'lo'], { stdio: 'ignore' });
  } catch {
    return undefined;
  }
  return { address, remove: () => execFileSync('ip', ['addr', 'del', `${address}/32`, 'dev', 'lo'], { stdio: 'ignore' }) };
}

const local = publicLocalAddress();

/** A resolver from a table the test changes; names not in it do not resolve. */
function resolverFrom(table: Map<string, string>): ResolveHost {
  return async (hostname) => {
    const address = table.get(hostname.toLowerCase());
    if (address === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return [{ address, family: address.includes(':') ? 6 : 4 } satisfies LookupAddress];
  };
}

const port = (server: FeedServer) => new URL(server.base).port;

for (const backend of storeBackends()) {
  describe(`pulls and where they may connect (${backend.name})`, { skip: local === undefined && 'no public-class address on this machine, and none could be added to lo' }, () => {
    let world: PullWorld;
    let outside: FeedServer;
    let inside: FeedServer;
    const dns = new Map<string, string>();
    const resolveHost = resolverFrom(dns);
    const pull = (fid: number, extra: { allowPrivateNetworks?: boolean } = {}) => world.pull(fid, { deps: { resolveHost, ...extra } });

    before(async () => {
      world = await openPullWorld(backend);
      outside = await startFeedServer(local!.address);
      inside = await startFeedServer();
      inside.publish('/secret.txt', addressLines(0, 5));
      dns.set('feed.example.test', local!.address);
      dns.set('intranet.example.test', '127.0.0.1');
    });
    after(async () => {
      await outside.close();
      await inside.close();
      await world.close();
      await backend.cleanup();
    });

    /** A pull that must fail with `reason` and change nothing; the inside server is never asked. */
    async function refused(fid: number, reason: RegExp, extra: { allowPrivateNetworks?: boolean } = {}): Promise<void> {
      const before = await snapshotStore(world.store);
      const asked = inside.requests.length;
      const outcome = await pull(fid, extra);
      assert.equal(outcome.ok, false);
      assert.match((outcome as { reason: string }).reason, reason);
      assert.equal(inside.requests.length, asked, 'the loopback server was reached');
      assertSameStore(await snapshotStore(world.store), before, 'a refused pull');
    }

    const LOOPBACK_REFUSED = /connection to a loopback address \(127\.0\.0\.1\) refused: allow it with "network": "private" on the source or sources\.allowPrivateNetworks in the config$/;

    it('a feed on a public host that redirects to a loopback server is refused, and that server never asked', async () => {
      outside.publish('/moved.txt', '');
      outside.fail('/moved.txt', { kind: 'status', status: 302, location: `${inside.base}/secret.txt` });
      const fid = await world.addSource('Moved to loopback', { url: `http://feed.example.test:${port(outside)}/moved.txt`, format: 'text' });
      await refused(fid, LOOPBACK_REFUSED);
      assert.equal(outside.requestsFor('/moved.txt').length, 1);
    });

    it('a redirect to a name that resolves to loopback is refused the same way', async () => {
      outside.publish('/by-name.txt', '');
      outside.fail('/by-name.txt', { kind: 'status', status: 301, location: `http://intranet.example.test:${port(inside)}/secret.txt` });
      const fid = await world.addSource('Moved by name', { url: `http://feed.example.test:${port(outside)}/by-name.txt`, format: 'text' });
      await refused(fid, LOOPBACK_REFUSED);
    });

    it('a host that resolved to a public address and later resolves to loopback is refused at the later pull', async () => {
      dns.set('rebind.example.test', local!.address);
      outside.publish('/list.txt', addressLines(100, 4));
      inside.publish('/list.txt', addressLines(200, 4));
      const fid = await world.addSource('Rebinding', { url: `http://rebind.example.test:${port(outside)}/list.txt`, format: 'text' });
      const first = await pull(fid);
      assert.equal(first.ok, true, JSON.stringify(first));
      // A kept-alive connection goes on to the address checked when it was made; a new one resolves again.
      outside.closeIdleConnections();
      // Let the client see the close before the next pull, which would otherwise try the dead socket.
      await delay(200);
      dns.set('rebind.example.test', '127.0.0.1');
      await refused(fid, LOOPBACK_REFUSED);
    });

    it('a redirect to 0.0.0.0 is refused even from a loopback source, which may reach loopback', async () => {
      inside.publish('/to-zero.txt', '');
      inside.fail('/to-zero.txt', { kind: 'status', status: 307, location: `http://0.0.0.0:${port(inside)}/secret.txt` });
      const fid = await world.addSource('To 0.0.0.0', { url: `${inside.base}/to-zero.txt`, format: 'text' });
      const asked = inside.requestsFor('/secret.txt').length;
      const outcome = await pull(fid, { allowPrivateNetworks: true });
      assert.equal(outcome.ok, false);
      assert.match((outcome as { reason: string }).reason, /connection to an unspecified address \(0\.0\.0\.0\) refused: pulls never connect to unspecified addresses$/);
      assert.equal(inside.requestsFor('/secret.txt').length, asked);
    });

    it('a redirect to a cloud metadata address (169.254.169.254) is refused without a connection', async () => {
      outside.publish('/metadata.txt', '');
      outside.fail('/metadata.txt', { kind: 'status', status: 302, location: 'http://169.254.169.254/latest/meta-data/iam/' });
      const fid = await world.addSource('To metadata', { url: `http://feed.example.test:${port(outside)}/metadata.txt`, format: 'text' });
      await refused(fid, /connection to a link-local address \(169\.254\.169\.254\) refused: pulls never connect to link-local addresses$/, { allowPrivateNetworks: true });
    });

    it('a redirect never reaches further in than its source: a loopback source may not be sent to a private address', async () => {
      inside.publish('/to-private.txt', '');
      inside.fail('/to-private.txt', { kind: 'status', status: 302, location: 'http://10.255.0.1/list.txt' });
      const fid = await world.addSource('To private', { url: `${inside.base}/to-private.txt`, format: 'text' });
      const outcome = await pull(fid);
      assert.match((outcome as { reason: string }).reason, /connection to a private address \(10\.255\.0\.1\) refused/);
    });

    it('a source whose host name resolves to loopback is refused at its first request', async () => {
      inside.publish('/direct.txt', addressLines(300, 3));
      const fid = await world.addSource('Named loopback', { url: `http://intranet.example.test:${port(inside)}/direct.txt`, format: 'text' });
      await refused(fid, LOOPBACK_REFUSED);
    });

    it('a TAXII walk is held to the same: its first page redirected to loopback is refused', async () => {
      outside.publish('/taxii2/api/collections/c1/objects/', '');
      outside.fail('/taxii2/api/collections/c1/objects/', { kind: 'status', status: 302, location: `${inside.base}/secret.txt` });
      const fid = await world.addSource('TAXII moved', { url: `http://feed.example.test:${port(outside)}/taxii2/api/collections/c1/objects/`, format: 'taxii' });
      await refused(fid, LOOPBACK_REFUSED);
    });

    it('with "network": "private" on the source, the redirect to loopback is followed and its values stored', async () => {
      outside.publish('/internal.txt', '');
      outside.fail('/internal.txt', { kind: 'status', status: 302, location: `${inside.base}/secret.txt` });
      const fid = await world.addSource('Internal list', { url: `http://feed.example.test:${port(outside)}/internal.txt`, format: 'text', network: 'private' });
      const outcome = await pull(fid);
      assert.equal(outcome.ok, true, JSON.stringify(outcome));
      assert.deepEqual((await world.feedLinks(fid)).map((l) => l.indicator).sort(), addressLines(0, 5).trim().split('\n').sort());
    });

    it('with sources.allowPrivateNetworks in the config, a host resolving to loopback is reached', async () => {
      inside.publish('/allowed.txt', addressLines(400, 2));
      const fid = await world.addSource('Allowed by config', { url: `http://intranet.example.test:${port(inside)}/allowed.txt`, format: 'text' });
      const outcome = await pull(fid, { allowPrivateNetworks: true });
      assert.equal(outcome.ok, true, JSON.stringify(outcome));
      assert.equal(outcome.ok && outcome.values, 2);
    });

    it('feeds add refuses a URL naming a link-local, unspecified or multicast address, naming the class', async () => {
      for (const [url, kind] of [['http://169.254.169.254/latest/', 'a link-local'], ['http://[fe80::1]:8080/x', 'a link-local'], ['http://0.0.0.0/list', 'an unspecified'], ['http://239.1.2.3/x', 'a multicast']]) {
        await assert.rejects(world.addSource(`Never ${url}`, { url, format: 'text' }), { message: new RegExp(`^source\\.url: names ${kind} address \\(.+\\), which pulls never connect to$`) });
      }
    });
  });
}

after(() => local?.remove());
