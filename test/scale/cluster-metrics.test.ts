// GET /metrics under `serve --workers 2` (built CLI): whichever worker answers, the text is the
// cluster's sum (both workers' requests, the primary's pull thread), and it never holds a key.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest, type OutgoingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { addFeedSource } from '../../src/cli/add-feed-source.js';
import { loadConfig } from '../../src/config.js';
import { openStore } from '../../src/store/open-store.js';
import { startCli, type CliProcess } from '../helpers/cli-process.js';
import { startFeedServer, type FeedServer } from '../helpers/feed-server.js';
import { seedDatabase } from '../helpers/gateway-instances.js';
import { parsePrometheusText, sampleValue, type Exposition } from '../helpers/prometheus-text.js';
import { storeBackends, type Backend } from '../helpers/store-backends.js';
import { fixedClock } from '../helpers/test-app.js';
import { basicAuth, TAXII_TYPE } from '../taxii/taxii-request.js';

/** Anonymous requests run out after 3 a day, so that 429s are reachable; keyed plans stay out of the way. */
const SETTINGS = {
  plans: {
    anonymous: { perSecond: 1000, perDay: 3, perMonth: 1000 },
    pro: { perSecond: 1000, perDay: 100000, perMonth: 1000000 },
  },
  pull: { checkSeconds: 1 },
};

const REQUESTS = 'threatgate_http_requests_total';

/** A GET on a new connection (so the primary hands it to the next worker), with its body. */
function get(base: string, path: string, headers: OutgoingHttpHeaders = {}): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(new URL(path, base), { agent: false, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('GET /metrics under serve --workers 2 (built)', () => {
  let dir: string;
  let backend: Backend;
  let feeds: FeedServer;
  let keys: Record<string, string>;
  let fid: number;
  let server: CliProcess;
  let disabled: CliProcess;
  let base: string;

  const workerOf = (path: string) =>
    new Set(
      server
        .logs()
        .filter((e) => e.msg === 'request' && typeof e.url === 'string' && e.url.startsWith(path))
        .map((e) => e.pid),
    );
  const scrape = async (): Promise<Exposition> => {
    const res = await get(base, '/metrics');
    assert.equal(res.status, 200, res.text);
    return parsePrometheusText(res.text);
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'threatgate-cluster-metrics-'));
    backend = storeBackends()[0]!;
    const config = loadConfig({ overrides: SETTINGS });
    const seeded = await seedDatabase(backend, config);
    keys = seeded.keys;
    feeds = await startFeedServer();
    feeds.publish('/list.txt', '192.0.2.44\n198.51.100.45\nmetrics.example.net\n');
    const store = await openStore(seeded.location, { collections: config.collections });
    try {
      fid = await addFeedSource(store, { feed: 'Metrics list', organization: 'Test', source: { url: `${feeds.base}/list.txt`, format: 'text', schedule: 'hourly' } }, fixedClock, {});
    } finally {
      await store.close();
    }
    const configFile = join(dir, 'config.json');
    writeFileSync(configFile, JSON.stringify(SETTINGS));
    const offFile = join(dir, 'off.json');
    writeFileSync(offFile, JSON.stringify({ ...SETTINGS, metrics: { enabled: false } }));
    server = startCli(['serve', '--workers', '2', '--port', '0', '--db', seeded.location, '--config', configFile]);
    disabled = startCli(['serve', '--workers', '2', '--port', '0', '--db', seeded.location, '--config', offFile, '--no-pull']);
    base = await server.ready;
    await server.waitForLog((e) => e.msg === 'pull', 30_000);
  });

  after(async () => {
    for (const cli of [server, disabled]) if (cli && cli.child.exitCode === null) cli.child.kill('SIGKILL');
    await feeds?.close();
    await backend?.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sums 200, 404 and 429 over both workers, whichever worker answers the scrape', async () => {
    for (let i = 0; i < 8; i++) assert.equal((await get(base, `/api/threat.php?tid=1&key=${keys.pro}`)).status, 200);
    for (let i = 0; i < 4; i++) assert.equal((await get(base, `/api/threat.php?tid=999999&key=${keys.pro}`)).status, 404);
    const anonymous = [];
    for (let i = 0; i < 6; i++) anonymous.push((await get(base, `/api/feed.php?fid=1&n=${i}`)).status);
    assert.deepEqual(anonymous, [200, 200, 200, 429, 429, 429]);

    const served = workerOf('/api/threat.php?tid=1&key=');
    assert.equal(served.size, 2, `the 200s were served by ${[...served].join(', ')}`);
    assert.equal(served.has(server.child.pid!), false);
    // Neither worker served all eight, so a total of eight is a sum.
    const perWorker = [...served].map((pid) => server.logs().filter((e) => e.msg === 'request' && e.pid === pid && String(e.url).startsWith('/api/threat.php?tid=1&')).length);
    assert.ok(perWorker.every((n) => n < 8), `per worker: ${perWorker.join(', ')}`);

    for (let i = 0; i < 4; i++) {
      const text = await scrape();
      assert.equal(sampleValue(text, REQUESTS, { route: '/api/threat.php', method: 'GET', status: '200' }), 8);
      assert.equal(sampleValue(text, REQUESTS, { route: '/api/threat.php', method: 'GET', status: '404' }), 4);
      assert.equal(sampleValue(text, REQUESTS, { route: '/api/feed.php', method: 'GET', status: '200' }), 3);
      assert.equal(sampleValue(text, REQUESTS, { route: '/api/*', method: 'GET', status: '429' }), 3);
      assert.equal(sampleValue(text, 'threatgate_rate_limited_total', { plan: 'anonymous', window: 'day' }), 3);
      assert.equal(sampleValue(text, 'threatgate_http_request_duration_seconds_count', { route: '/api/threat.php' }), 12);
      // Every lookup that reached a handler asked the cache once: 8 + 4 + 3.
      const lookups = sampleValue(text, 'threatgate_response_cache_hits_total', { cache: 'lookup' }) + sampleValue(text, 'threatgate_response_cache_misses_total', { cache: 'lookup' });
      assert.equal(lookups, 15);
      assert.ok(sampleValue(text, 'process_cpu_seconds_total') > 0);
    }
    assert.equal(workerOf('/metrics').size, 2, 'both workers answered scrapes');
  });

  it('includes the primary\'s pull thread: the pull and the lifecycle run after it', async () => {
    let text = await scrape();
    for (let i = 0; i < 50 && sampleValue(text, 'threatgate_import_duration_seconds_count', { kind: 'lifecycle' }) < 1; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      text = await scrape();
    }
    const pulled = server.logs().filter((e) => e.msg === 'pull');
    assert.equal(pulled.length, 1);
    assert.equal(pulled[0]!.pid, server.child.pid, 'the primary pulled');
    assert.equal(sampleValue(text, 'threatgate_feed_pulls_total', { fid: String(fid), outcome: 'ok' }), 1);
    assert.equal(sampleValue(text, 'threatgate_feed_pulls_total', { fid: String(fid), outcome: 'failed' }), 0);
    assert.equal(sampleValue(text, 'threatgate_feed_pull_duration_seconds_count'), 1);
    assert.equal(sampleValue(text, 'threatgate_import_duration_seconds_count', { kind: 'pull' }), 1);
    // At least the run after the pull; one more when a check came while the first pull still ran
    // (a running pull holds the lifecycle back only when it was started by that same check).
    assert.ok(sampleValue(text, 'threatgate_import_duration_seconds_count', { kind: 'lifecycle' }) >= 1);
    assert.equal(sampleValue(text, 'threatgate_feed_schedule_seconds', { fid: String(fid) }), 3600);
    const last = sampleValue(text, 'threatgate_feed_last_success_timestamp_seconds', { fid: String(fid) });
    assert.ok(Math.abs(last - Date.now() / 1000) < 120, `last success ${last}`);
    // The lifecycle's retirements, as its log line names them (the fixture's stamps are months old).
    const runs = server.logs().filter((e) => e.msg === 'lifecycle');
    const threats = runs.reduce((n, e) => n + (e.retiredThreats as unknown[]).length, 0);
    const indicators = runs.reduce((n, e) => n + (e.agedIndicators as number), 0);
    assert.equal(sampleValue(text, 'threatgate_lifecycle_retired_total', { kind: 'threat' }), threats);
    assert.equal(sampleValue(text, 'threatgate_lifecycle_retired_total', { kind: 'indicator' }), indicators);
  });

  it('never holds a key, whether it came in the query string or Basic auth', async () => {
    assert.equal((await get(base, `/api/feed.php?fid=2&key=${keys.pro}`)).status, 200);
    assert.equal((await get(base, '/taxii2/', { authorization: basicAuth(keys.pro!), accept: TAXII_TYPE })).status, 200);
    assert.equal((await get(base, `/taxii2/?key=${keys.pro}&accept=${encodeURIComponent(TAXII_TYPE)}`)).status, 200);
    // The Free plan reads only the test collection: refused by the plan gate, before a route.
    assert.equal((await get(base, '/taxii2/', { authorization: basicAuth(keys.free!), accept: TAXII_TYPE })).status, 403);
    await get(base, `/api/${keys.business}`);
    for (let i = 0; i < 2; i++) {
      const res = await get(base, '/metrics');
      for (const key of Object.values(keys)) assert.equal(res.text.includes(key), false, 'a key is in the metrics text');
      const text = parsePrometheusText(res.text);
      assert.equal(sampleValue(text, REQUESTS, { route: '/taxii2/', status: '200' }), 2);
      assert.equal(sampleValue(text, REQUESTS, { route: '/taxii2/*', status: '403' }), 1);
    }
  });

  it('with metrics.enabled false, there is no /metrics', async () => {
    const offBase = await disabled.ready;
    for (let i = 0; i < 2; i++) assert.equal((await get(offBase, '/metrics')).status, 404);
    assert.equal((await get(offBase, `/api/threat.php?tid=1&key=${keys.pro}`)).status, 200);
  });
});
