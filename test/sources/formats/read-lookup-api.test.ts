// The lookup-api reader against a real threatgate started in the test (linksPageSize 5), with faults scripted in front of it.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { FeedBatch, FeedEntry } from '../../../src/sources/parsers/feed-entry.js';
import { readLookupApi, type LookupApiOptions, type LookupApiSource } from '../../../src/sources/formats/lookup-api-format.js';
import { parseSource } from '../../../src/sources/source-definition.js';
import { createTestContext, GENEROUS_PLANS, type TestContext } from '../../helpers/test-app.js';

/** Answers a request instead of the app when it returns true. */
type Script = (query: URLSearchParams, res: ServerResponse) => boolean;

interface Upstream {
  base: string;
  /** The query of every request, in order (the key left out). */
  queries: string[];
  script: Script | undefined;
  close(): Promise<void>;
}

async function startUpstream(ctx: TestContext): Promise<Upstream> {
  const upstream: Upstream = { base: '', queries: [], script: undefined, close: async () => {} };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const logged = new URLSearchParams(url.searchParams);
    logged.delete('key');
    upstream.queries.push(`${url.pathname}?${logged}`);
    if (upstream.script?.(url.searchParams, res)) return;
    ctx.app(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  upstream.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  upstream.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return upstream;
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers }).end(typeof body === 'string' ? body : JSON.stringify(body));
  return true;
};

interface Read {
  entries: FeedEntry[];
  skipped: number;
  withdrawn: FeedEntry[];
  batches: number;
  warnings: { message: string; fields: Record<string, unknown> }[];
  sleeps: number[];
}

describe('readLookupApi against a threatgate upstream', () => {
  let ctx: TestContext;
  let upstream: Upstream;
  before(async () => {
    ctx = await createTestContext({ overrides: GENEROUS_PLANS });
    upstream = await startUpstream(ctx);
  });
  after(async () => {
    await upstream.close();
    await ctx.close();
  });
  beforeEach(() => {
    upstream.queries.length = 0;
    upstream.script = undefined;
  });

  const sourceFor = (fid: number, plan = 'pro', url = `${upstream.base}/`, extra: Record<string, unknown> = {}) =>
    parseSource({ url, format: 'lookup-api', fid, key: ctx.keys[plan] ?? plan, ...extra }) as LookupApiSource;

  function reader(fid: number, options: { plan?: string; url?: string; maxPages?: number } & Partial<LookupApiOptions> = {}) {
    const warnings: Read['warnings'] = [];
    const sleeps: number[] = [];
    const { plan, url, maxPages, ...rest } = options;
    const source = sourceFor(fid, plan, url, maxPages === undefined ? {} : { maxPages });
    const read = readLookupApi(source, {
      displayUrl: url ?? `${upstream.base}/`,
      warn: (message, fields) => warnings.push({ message, fields }),
      sleep: async (ms) => {
        sleeps.push(ms);
      },
      ...rest,
    });
    return { read, warnings, sleeps };
  }

  async function readAll(fid: number, options: { plan?: string; url?: string; maxPages?: number } & Partial<LookupApiOptions> = {}): Promise<Read> {
    const { read, warnings, sleeps } = reader(fid, options);
    const all: Read = { entries: [], skipped: 0, withdrawn: [], batches: 0, warnings, sleeps };
    for await (const batch of read.batches as AsyncIterable<FeedBatch>) {
      all.batches++;
      all.entries.push(...batch.entries);
      all.skipped += batch.skipped;
      all.withdrawn.push(...(batch.withdrawn ?? []));
    }
    return all;
  }

  /** The entries the upstream's feed `fid` lists, by ascending iid, as pages of 5. */
  function expectedEntries(fid: number, count: number): FeedEntry[] {
    const linked = new Set(ctx.data.links.filter((l) => 'fid' in l && l.fid === fid).map((l) => l.iid));
    return ctx.data.indicators
      .filter((i) => linked.has(i.iid))
      .sort((a, b) => a.iid - b.iid)
      .slice(0, count)
      .map((i, n) => ({ value: i.indicator, type: i.type, risk: i.risk, position: `page ${Math.floor(n / 5)} row ${(n % 5) + 1}` }));
  }

  const linksQuery = (fid: number, page?: number) => `/api/feed.php?fid=${fid}&get=links${page === undefined ? '' : `&page=${page}`}`;

  describe('walking the pages (docs/interface.md section 5)', () => {
    it('reads the two pages a Pro key may read, then stops cleanly at the 403 page limit with a warning', async () => {
      const result = await readAll(1, { plan: 'pro' });
      assert.deepEqual(result.entries, expectedEntries(1, 10));
      assert.deepEqual(upstream.queries, [linksQuery(1), linksQuery(1, 1), linksQuery(1, 2)]);
      assert.equal(result.batches, 2);
      assert.deepEqual(result.warnings, [
        {
          message: 'lookup-api: the upstream plan allows no more pages; keeping the pages read',
          fields: { url: `${upstream.base}/api/feed.php`, fid: 1, pages: 2, refusedPage: 2, values: 10 },
        },
      ]);
    });

    it('follows page_next to the last page with a key whose plan reads them all', async () => {
      const result = await readAll(1, { plan: 'feed' });
      assert.deepEqual(result.entries, expectedEntries(1, 23));
      assert.deepEqual(upstream.queries, [linksQuery(1), ...[1, 2, 3, 4].map((p) => linksQuery(1, p))]);
      assert.deepEqual(result.warnings, []);
    });

    it('fails past maxPages, without asking for the page after', async () => {
      await assert.rejects(readAll(1, { plan: 'feed', maxPages: 3 }), { name: 'FeedFormatError', message: 'page 3: more than maxPages (3) pages in one pull' });
      assert.deepEqual(upstream.queries, [linksQuery(1), linksQuery(1, 1), linksQuery(1, 2)]);
    });

    it('reads a result that fits on one page (results alone) with one request, and an empty feed as no values', async () => {
      assert.deepEqual((await readAll(2)).entries, expectedEntries(2, 3));
      assert.deepEqual((await readAll(3)).entries, []);
      assert.deepEqual(upstream.queries, [linksQuery(2), linksQuery(3)]);
    });

    it('takes a base URL ending with /api, /api/ or /api/feed.php, or without its trailing slash, as the same endpoint', async () => {
      for (const url of [upstream.base, `${upstream.base}/api`, `${upstream.base}/api/`, `${upstream.base}/api/feed.php?fid=9`]) {
        upstream.queries.length = 0;
        assert.deepEqual((await readAll(2, { url })).entries, expectedEntries(2, 3), url);
        assert.deepEqual(upstream.queries, [linksQuery(2)], url);
      }
    });

    it('counts rows without an indicator as skipped', async () => {
      upstream.script = (_q, res) => json(res, 200, { results: [{ iid: 1, indicator: '192.0.2.1', type: 'ip', risk: 'high' }, { iid: 2, indicator: '' }, { iid: 3 }, 'x'] });
      const result = await readAll(1);
      assert.deepEqual(result.entries, [{ value: '192.0.2.1', type: 'ip', risk: 'high', position: 'page 0 row 1' }]);
      assert.equal(result.skipped, 3);
    });

    it('gives a row of risk retired as withdrawn, and each other row with its own risk', async () => {
      upstream.script = (_q, res) =>
        json(res, 200, {
          results: [
            { iid: 1, indicator: '192.0.2.1', type: 'ip', risk: 'low' },
            { iid: 2, indicator: 'gone.example.com', type: 'domain', risk: 'retired' },
            { iid: 3, indicator: '192.0.2.3', type: 'ip', risk: ' Retired ' },
          ],
        });
      const result = await readAll(1);
      assert.deepEqual(result.entries, [{ value: '192.0.2.1', type: 'ip', risk: 'low', position: 'page 0 row 1' }]);
      assert.deepEqual(result.withdrawn, [
        { value: 'gone.example.com', type: 'domain', risk: 'retired', position: 'page 0 row 2' },
        { value: '192.0.2.3', type: 'ip', risk: 'Retired', position: 'page 0 row 3' },
      ]);
      assert.equal(result.skipped, 0);
    });
  });

  describe('rate limits', () => {
    const rateLimited = (seconds: string) => (res: ServerResponse) => json(res, 429, { error: 'API rate limit exceeded: 10 requests per second for the Pro plan.' }, { 'retry-after': seconds });

    it('waits out a 429 for its Retry-After and asks for the same page again', async () => {
      let refused = false;
      upstream.script = (query, res) => {
        if (query.get('page') !== '1' || refused) return false;
        refused = true;
        return rateLimited('2')(res);
      };
      const result = await readAll(1, { plan: 'feed' });
      assert.deepEqual(result.sleeps, [2000]);
      assert.deepEqual(result.entries, expectedEntries(1, 23));
      assert.deepEqual(upstream.queries, [linksQuery(1), linksQuery(1, 1), linksQuery(1, 1), ...[2, 3, 4].map((p) => linksQuery(1, p))]);
    });

    it('waits out a 503 that says Retry-After, and fails on one that does not', async () => {
      let refused = false;
      upstream.script = (_q, res) => !refused && (refused = true) && json(res, 503, { error: 'The database is unavailable; try again shortly.' }, { 'retry-after': '5' });
      const result = await readAll(2);
      assert.deepEqual(result.sleeps, [5000]);
      assert.deepEqual(result.entries, expectedEntries(2, 3));
      upstream.script = (_q, res) => json(res, 503, { error: 'The database is unavailable; try again shortly.' });
      await readAllRejects(2, {}, { name: 'FetchError', status: 503 });
    });

    it('fails when the waits would exceed maxWaitSeconds in total, naming no key', async () => {
      upstream.script = (_q, res) => rateLimited('100')(res);
      const { sleeps } = await readAllRejects(1, { maxWaitSeconds: 250 }, {
        name: 'FetchError',
        status: 429,
        message: `${upstream.base}/api/feed.php: HTTP status 429, Retry-After 100 s: more than the 250 s a pull waits`,
      });
      assert.deepEqual(sleeps, [100_000, 100_000]);
    });

    it('gives up after repeated 429s that ask for no wait at all, each waited as one second', async () => {
      upstream.script = (_q, res) => rateLimited('0')(res);
      const { sleeps } = await readAllRejects(1, {}, { name: 'FetchError', message: /HTTP status 429 11 times in a row for page 0$/ });
      assert.deepEqual(sleeps, Array(10).fill(1000));
    });

    it('stops waiting when the pull is aborted', async () => {
      upstream.script = (_q, res) => rateLimited('30')(res);
      const controller = new AbortController();
      const { read } = reader(1, { signal: controller.signal, sleep: undefined });
      const walk = (async () => {
        for await (const _ of read.batches) void _;
      })();
      setTimeout(() => controller.abort(), 50);
      await assert.rejects(walk, { name: 'FetchError', message: `${upstream.base}/api/feed.php: aborted` });
    });
  });

  describe('failures throw, so the pull keeps nothing', () => {
    it('a 403 on the first page is no page limit: the key may read nothing', async () => {
      upstream.script = (_q, res) => json(res, 403, { error: 'Your plan is no longer offered.' });
      await readAllRejects(1, {}, { name: 'FetchError', status: 403 });
    });

    it('an unknown key (401), an unknown feed (404) and a server error on a later page', async () => {
      await readAllRejects(1, { plan: 'not-a-real-key-but-long-enough-to-be-checked-0123' }, { name: 'FetchError', status: 401 });
      await readAllRejects(99, {}, { name: 'FetchError', status: 404 });
      upstream.script = (query, res) => query.get('page') === '1' && json(res, 500, { error: 'Internal server error.' });
      await readAllRejects(1, {}, { name: 'FetchError', status: 500, message: `${upstream.base}/api/feed.php: HTTP status 500` });
    });

    it('a page that is not JSON, even one that echoes the key, is refused without quoting it', async () => {
      upstream.script = (query, res) => json(res, 200, `key=${query.get('key')} is not valid`);
      await readAllRejects(1, {}, { name: 'FeedFormatError', message: /^page 0: not valid JSON \(Unexpected token/ });
    });

    it('a page that is not a links page, and a page_next that does not move forward', async () => {
      upstream.script = (_q, res) => json(res, 200, { error: 'no' });
      await readAllRejects(1, {}, { name: 'FeedFormatError', message: 'page 0: not a links page: no "results" array' });
      upstream.script = (_q, res) => json(res, 200, { page_current: 0, page_next: 0, results: [{ indicator: '192.0.2.1' }] });
      await readAllRejects(1, {}, { name: 'FeedFormatError', message: 'page 0: page_next is not a page number after this page' });
    });

    it('ends at a page with no rows even when it names a next page', async () => {
      upstream.script = (query, res) =>
        json(res, 200, query.get('page') === null ? { page_current: 0, page_next: 1, results: [{ indicator: '192.0.2.1' }] } : { page_current: 1, page_next: 2, results: [] });
      const result = await readAll(1);
      assert.equal(result.entries.length, 1);
      assert.deepEqual(upstream.queries, [linksQuery(1), linksQuery(1, 1)]);
    });

    it('refuses a source that is not http(s), when the source is read', () => {
      assert.throws(() => parseSource({ url: 'file:///tmp/feed', format: 'lookup-api', fid: 1, key: 'k' }), {
        name: 'SourceDefinitionError',
        message: 'source.url: must be an http:// or https:// URL for format lookup-api',
      });
    });
  });

  describe('the upstream feed record', () => {
    it('gives its description, website, category and pricing, fetched once', async () => {
      const { read } = reader(1);
      const expected = { description: 'Botnet C&C (IPv4) by Example Labs, Inc.', website: 'https://example.org/feeds', category: 'malware', pricing: 'free' };
      assert.deepEqual(await read.feed(), expected);
      assert.deepEqual(await read.feed(), expected);
      assert.deepEqual(upstream.queries, ['/api/feed.php?fid=1']);
    });

    it('gives undefined when the record has none of them, and rejects as a page would', async () => {
      upstream.script = (_q, res) => json(res, 200, { fid: 1, feed: 'x', description: '', website: null });
      assert.equal(await reader(1).read.feed(), undefined);
      upstream.script = undefined;
      await assert.rejects(reader(99).read.feed(), { name: 'FetchError', status: 404 });
    });
  });

  /** Runs a walk that must fail as `expected`; no message or warning may hold the key. */
  async function readAllRejects(fid: number, options: { plan?: string } & Partial<LookupApiOptions>, expected: Record<string, unknown>): Promise<{ sleeps: number[] }> {
    const { read, warnings, sleeps } = reader(fid, options);
    let caught: unknown;
    try {
      for await (const _ of read.batches) void _;
    } catch (error) {
      caught = error;
    }
    assert.ok(caught instanceof Error, 'the walk must fail');
    assert.throws(() => {
      throw caught;
    }, expected);
    const key = sourceFor(fid, options.plan).key;
    assert.ok(!String(caught.message).includes(key) && !JSON.stringify(warnings).includes(key), 'the key is never shown');
    return { sleeps };
  }
});
