// Pulls bounded as a whole, side by side, under leases that hold (docs/security.md; docs/interface.md section
// 10, "Background pulls"): a TAXII walk that never ends fails at maxSeconds and changes nothing; a slow feed
// holds one of `pull.concurrency` slots, not the others or the lifecycle; a lease is renewed through a long
// walk on SQLite too, while a second process tries to take it. Scripted TAXII and text servers on 127.0.0.1;
// SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { addFeedSource } from '../../src/cli/add-feed-source.js';
import { systemClock } from '../../src/clock.js';
import { silentLogger } from '../../src/logger.js';
import type { BackgroundEvent } from '../../src/metrics/metrics.js';
import { createAllowlist } from '../../src/sources/allowlist.js';
import { startPullScheduler } from '../../src/sources/pull-scheduler.js';
import type { Store } from '../../src/store/contract/store.js';
import { assertSameStore, openPullWorld, snapshotStore } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';

const COLLECTION = '/taxii2/api/collections/c1/objects/';
const TAXII = 'application/taxii+json;version=2.1';
const indicator = (n: number) => ({
  type: 'indicator', spec_version: '2.1', id: `indicator--00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  created: '2026-01-01T00:00:00.000Z', modified: '2026-01-01T00:00:00.000Z', valid_from: '2026-01-01T00:00:00Z',
  pattern: `[ipv4-addr:value = '198.18.${n >> 8}.${n & 255}']`, pattern_type: 'stix',
});

interface Upstream {
  server: Server;
  base: string;
  /** Page requests answered so far. */
  pages: number;
  /** Milliseconds each TAXII page waits before it is answered. */
  pageDelayMs: number;
  /** `endless`: every page names a new next; otherwise a walk of `walkPages` pages. */
  endless: boolean;
  walkPages: number;
}

/** A TAXII collection at COLLECTION (scripted as above) and a two-line text list at /fast.txt. */
async function startUpstream(): Promise<Upstream> {
  const upstream: Upstream = { server: createServer(), base: '', pages: 0, pageDelayMs: 0, endless: false, walkPages: 2 };
  upstream.server.on('request', (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/fast.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('198.19.0.1\n198.19.0.2\n');
    const page = upstream.pages++;
    const last = !upstream.endless && page + 1 >= upstream.walkPages;
    const body = JSON.stringify({ more: !last, ...(last ? {} : { next: `token-${page + 1}` }), objects: [indicator(page + 1)] });
    setTimeout(() => res.writeHead(200, { 'content-type': TAXII, 'x-taxii-date-added-last': '2026-01-01T00:00:00.000000Z' }).end(body), upstream.pageDelayMs);
  });
  await new Promise<void>((resolve) => upstream.server.listen(0, '127.0.0.1', resolve));
  upstream.base = `http://127.0.0.1:${(upstream.server.address() as AddressInfo).port}`;
  return upstream;
}

const LEASE_TAKER = fileURLToPath(new URL('../helpers/lease-taker.ts', import.meta.url));

for (const backend of storeBackends()) {
  describe(`bounded pulls (${backend.name})`, () => {
    let upstream: Upstream;
    before(async () => {
      upstream = await startUpstream();
    });
    after(async () => {
      upstream.server.closeAllConnections();
      upstream.server.close();
      await backend.cleanup();
    });

    it('a TAXII walk whose pages never end fails at maxSeconds and changes nothing', async () => {
      const world = await openPullWorld(backend);
      try {
        Object.assign(upstream, { endless: true, pageDelayMs: 50, pages: 0 });
        const fid = await world.addSource('Endless', { url: `${upstream.base}${COLLECTION}`, format: 'taxii', maxSeconds: 1 });
        const before = await snapshotStore(world.store);
        const outcome = await world.pull(fid);
        assert.deepEqual(outcome.ok ? 'ok' : outcome.reason, 'the pull took longer than maxSeconds (1 s)');
        assert.ok(upstream.pages > 3, `only ${upstream.pages} pages were asked for`);
        assertSameStore(await snapshotStore(world.store), before, 'a pull past maxSeconds');
      } finally {
        await world.close();
      }
    });

    it('a slow feed holds one of two slots: a fast feed and the lifecycle run while it walks', async () => {
      const { store } = await backend.create();
      Object.assign(upstream, { endless: false, walkPages: 3, pageDelayMs: 700, pages: 0 });
      const slow = await addFeedSource(store, { feed: 'Slow TAXII', organization: 'Test', source: { url: `${upstream.base}${COLLECTION}`, format: 'taxii' } }, systemClock, {});
      const fast = await addFeedSource(store, { feed: 'Fast list', organization: 'Test', source: { url: `${upstream.base}/fast.txt`, format: 'text' } }, systemClock, {});
      const events: Array<{ at: number; event: BackgroundEvent }> = [];
      const scheduler = startPullScheduler({
        store, clock: systemClock, env: {}, allowlist: createAllowlist(undefined), logger: silentLogger, checkMs: 100, concurrency: 2,
        lifecycle: { threatRetireDays: 90, indicatorRetireDays: 30 }, report: (event) => void events.push({ at: Date.now(), event }),
      });
      try {
        await scheduler.tick();
        const pullOf = (fid: number) => {
          const found = events.find((e) => e.event.kind === 'pull' && e.event.fid === fid);
          return found?.event.kind === 'pull' ? { at: found.at, outcome: found.event.outcome } : undefined;
        };
        const slowDone = pullOf(slow);
        const fastDone = pullOf(fast);
        assert.equal(slowDone?.outcome, 'ok');
        assert.equal(fastDone?.outcome, 'ok');
        assert.ok(fastDone.at < slowDone.at, 'the fast feed waited for the slow one');
        assert.ok(events.some((e) => e.event.kind === 'retired' && e.at < slowDone.at), 'the lifecycle waited for the slow feed');
      } finally {
        await scheduler.stop();
        await store.close();
      }
    });

    // A lease lost mid-walk used to leave this pull hanging on SQLite: the timeout makes that a failure.
    it('a lease is renewed through a walk longer than the lease, while a second process tries to take it', { timeout: 60_000 }, async () => {
      const { store, location } = await backend.create();
      Object.assign(upstream, { endless: false, walkPages: 4, pageDelayMs: 1000, pages: 0 });
      const fid = await addFeedSource(store, { feed: 'Long walk', organization: 'Test', source: { url: `${upstream.base}${COLLECTION}`, format: 'taxii' } }, systemClock, {});
      const scheduler: ReturnType<typeof startPullScheduler> | undefined = startPullScheduler({
        store, clock: systemClock, env: {}, allowlist: createAllowlist(undefined), logger: silentLogger, checkMs: 3_600_000, leaseMs: 1500, renewMs: 300,
      });
      let taker: ReturnType<typeof spawn> | undefined;
      try {
        // The scheduler's first check has started the pull (it took the lease before its first request).
        while (upstream.pages === 0) await new Promise((resolve) => setTimeout(resolve, 20));
        taker = spawn(process.execPath, ['--import', 'tsx', LEASE_TAKER, location, String(fid), '3500'], { stdio: ['ignore', 'pipe', 'inherit'] });
        let output = '';
        taker.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
        await scheduler.tick();
        await once(taker, 'exit');
        assert.equal(output, 'ready\ndone\n', 'the second process took the lease of a pull still running');
        const [listed] = await store.listFeedSources();
        assert.equal(listed?.last_error ?? null, null);
        assert.notEqual(listed?.stamp_pulled ?? null, null);
      } finally {
        taker?.kill();
        await scheduler.stop();
        await (store as Store).close();
      }
    });
  });
}
