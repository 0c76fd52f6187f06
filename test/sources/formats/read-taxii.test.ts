// The taxii reader against a scripted TAXII 2.1 server on 127.0.0.1: paging with next and without, added_after and limit, 429s, threats fetched by id, real servers' gaps, and failures mid-walk.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { FeedBatch, FeedRelation } from '../../../src/sources/parsers/feed-entry.js';
import { readTaxiiCollection, type TaxiiRead, type TaxiiReadOptions, type TaxiiSource } from '../../../src/sources/formats/taxii-format.js';
import { isLater } from '../../../src/sources/transports/taxii-walk.js';
import { parseSource } from '../../../src/sources/source-definition.js';
import { createTestContext, GENEROUS_PLANS, type TestContext } from '../../helpers/test-app.js';
import { collectionPath, TEST_COLLECTION, taxiiGet } from '../../taxii/taxii-request.js';

interface Reply {
  status?: number;
  headers?: Record<string, string>;
  /** An object is sent as JSON; a string as it is. */
  body?: unknown;
}

interface Request {
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
}

let replies: Reply[] = [];
let requests: Request[] = [];

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://x');
  requests.push({ path: url.pathname, query: Object.fromEntries(url.searchParams), headers: req.headers });
  const reply = replies.shift() ?? { status: 599, body: 'the script has no more replies' };
  const body = reply.body === undefined ? '' : typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
  res.writeHead(reply.status ?? 200, { 'content-type': 'application/taxii+json;version=2.1', ...reply.headers }).end(body);
});

let base = '';
before(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => server.close());
beforeEach(() => {
  replies = [];
  requests = [];
});

const NOW = Date.parse('2025-06-01T00:00:00Z');
const OLD = '2025-05-01T00:00:00.000000Z';
const T1 = '2025-05-02T10:00:00.000001Z';
const T2 = '2025-05-03T10:00:00.123456Z';
const COLLECTION = '/taxii2/api1/collections/91a7b528-80eb-42ed-a74d-c6fbd5a26116/objects/';
const id = (type: string, n: number) => `${type}--2f1e0d3c-4b5a-4697-8a1b-${String(n).padStart(12, '0')}`;
const indicator = (n: number, pattern: string) => ({ type: 'indicator', spec_version: '2.1', id: id('indicator', n), pattern, pattern_type: 'stix', valid_from: '2025-01-01T00:00:00Z' });
const indicates = (n: number, target: string) => ({ type: 'relationship', spec_version: '2.1', id: id('relationship', n), relationship_type: 'indicates', source_ref: id('indicator', n), target_ref: target });
const MALWARE = { type: 'malware', spec_version: '2.1', id: id('malware', 1), name: 'Examplebot', aliases: ['ExBot'], is_family: true };
const GROUP = { type: 'intrusion-set', spec_version: '2.1', id: id('intrusion-set', 1), name: 'Example Group' };
const dates = (first: string, last: string) => ({ 'X-TAXII-Date-Added-First': first, 'X-TAXII-Date-Added-Last': last });

function source(extra: Record<string, unknown> = {}): TaxiiSource {
  return parseSource({ url: `${base}${COLLECTION}`, format: 'taxii', username: 'reader', password: 's3cret-pass-1234', ...extra }) as TaxiiSource;
}

interface Walk {
  read: TaxiiRead;
  sleeps: number[];
  warnings: string[];
}

function walk(cursor: string | null, options: Partial<TaxiiReadOptions> = {}, from = source()): Walk {
  const sleeps: number[] = [];
  const warnings: string[] = [];
  const read = readTaxiiCollection(from, cursor, {
    displayUrl: `${base}${COLLECTION}`,
    sleep: async (ms) => void sleeps.push(ms),
    limit: 2,
    now: () => NOW,
    onWarning: (message) => void warnings.push(message),
    ...options,
  });
  return { read, sleeps, warnings };
}

async function collect(batches: AsyncIterable<FeedBatch>): Promise<{ entries: FeedBatch['entries']; skipped: number; relations: FeedRelation[] }> {
  const all = { entries: [] as FeedBatch['entries'], skipped: 0, relations: [] as FeedRelation[] };
  for await (const batch of batches) {
    all.entries.push(...batch.entries);
    all.skipped += batch.skipped;
    all.relations.push(...(batch.relations ?? []));
  }
  return all;
}

const queries = () => requests.map((request) => request.query);

describe('readTaxiiCollection', () => {
  it('walks from the cursor: waits out a 429, follows next, goes on by date when next is absent, reads an empty last page, then fetches a missing threat by id', async () => {
    replies = [
      { status: 429, headers: { 'Retry-After': '2' }, body: '{"title":"slow down"}' },
      {
        headers: dates(OLD.replace('01T', '02T'), T1),
        body: {
          more: true,
          next: 'token-2',
          objects: [
            indicates(1, MALWARE.id),
            indicator(1, "[ipv4-addr:value = '192.0.2.1']"),
            indicator(2, "[ipv4-addr:value = '192.0.2.2' AND domain-name:value = 'and.example.com']"),
          ],
        },
      },
      // more without next: the client goes on with added_after = this page's X-TAXII-Date-Added-Last.
      { headers: dates(T1, T2), body: { more: true, objects: [MALWARE, indicator(3, "[url:value = 'https://example.com/a\\'b\\\\c']"), indicates(3, GROUP.id)] } },
      // An empty page as real servers send it: no objects member, no date headers.
      { body: { more: false } },
      // The intrusion-set the relationship points to was added before the cursor: asked for by id.
      { headers: dates(OLD, OLD), body: { more: false, objects: [GROUP] } },
    ];
    const { read, sleeps, warnings } = walk(OLD, {}, source({ headers: { 'X-Client': 'threatgate-test' } }));
    assert.equal(read.cursor(), OLD);
    const result = await collect(read.batches);

    assert.deepEqual(queries(), [
      { added_after: OLD, limit: '2' },
      { added_after: OLD, limit: '2' },
      { added_after: OLD, limit: '2', next: 'token-2' },
      { added_after: T2, limit: '2' },
      { 'match[id]': GROUP.id, limit: '2' },
    ]);
    assert.deepEqual(sleeps, [2000]);
    assert.deepEqual(warnings, []);
    for (const request of requests) {
      assert.equal(request.path, COLLECTION);
      assert.equal(request.headers.accept, 'application/taxii+json;version=2.1');
      assert.equal(request.headers.authorization, `Basic ${Buffer.from('reader:s3cret-pass-1234').toString('base64')}`);
      assert.equal(request.headers['x-client'], 'threatgate-test');
    }
    assert.deepEqual(result, {
      entries: [
        { value: '192.0.2.1', type: 'ip', position: 'page 1 objects[1]', ref: id('indicator', 1) },
        { value: "https://example.com/a'b\\c", type: 'url', position: 'page 2 objects[1]', ref: id('indicator', 3) },
      ],
      skipped: 1,
      relations: [
        { ref: id('indicator', 1), threat: { name: 'Examplebot', aliases: ['ExBot'], category: 'malware' } },
        { ref: id('indicator', 3), threat: { name: 'Example Group', aliases: [], category: 'group' } },
      ],
    });
    // The last X-TAXII-Date-Added-Last of the walk, not the one of the threats fetched by id.
    assert.equal(read.cursor(), T2);
  });

  it('asks a first pull without added_after, keeps the parameters of the configured URL, and keeps a null cursor when nothing comes', async () => {
    replies = [{ body: {} }];
    const configured = source({ url: `${base}${COLLECTION}?match[type]=indicator,relationship` });
    const { read } = walk(null, { limit: 1000 }, configured);
    assert.deepEqual(await collect(read.batches), { entries: [], skipped: 0, relations: [] });
    assert.deepEqual(queries(), [{ 'match[type]': 'indicator,relationship', limit: '1000' }]);
    assert.equal(read.cursor(), null);
  });

  it('keeps the old cursor when the collection has nothing new (objects: [])', async () => {
    replies = [{ body: { more: false, objects: [] } }];
    const { read } = walk(T1);
    await collect(read.batches);
    assert.deepEqual(queries(), [{ added_after: T1, limit: '2' }]);
    assert.equal(read.cursor(), T1);
  });

  it('never moves the cursor backwards, should a server ignore added_after', async () => {
    replies = [{ headers: dates(OLD, OLD), body: { more: false, objects: [indicator(1, "[ipv4-addr:value = '203.0.113.1']")] } }];
    const { read } = walk(T1);
    assert.equal((await collect(read.batches)).entries.length, 1);
    assert.equal(read.cursor(), T1);
  });

  it('stops, with a warning, when more is true without next and the date does not advance or is missing', async () => {
    replies = [{ headers: dates(T1, T1), body: { more: true, objects: [indicator(1, "[domain-name:value = 'a.example.org']")] } }];
    const stuck = walk(T1);
    assert.equal((await collect(stuck.read.batches)).entries.length, 1);
    assert.equal(requests.length, 1);
    assert.match(stuck.warnings[0] ?? '', /^page 1: "more" without "next", and X-TAXII-Date-Added-Last \(2025-05-02T10:00:00.000001Z\) is not later than added_after/);
    assert.equal(stuck.read.cursor(), T1);

    requests = [];
    replies = [{ body: { more: true, objects: [indicator(2, "[domain-name:value = 'b.example.org']")] } }];
    const headless = walk(OLD);
    await collect(headless.read.batches);
    assert.equal(requests.length, 1);
    assert.match(headless.warnings[0] ?? '', /X-TAXII-Date-Added-Last is missing/);
    assert.equal(headless.read.cursor(), OLD);
  });

  it('fails when the server breaks mid-walk, and keeps the old cursor', async () => {
    replies = [
      { headers: dates(T1, T1), body: { more: true, next: 'n2', objects: [indicator(1, "[ipv4-addr:value = '198.51.100.1']")] } },
      { status: 500, body: 'internal error' },
    ];
    const { read } = walk(OLD);
    const seen: FeedBatch[] = [];
    await assert.rejects(
      async () => {
        for await (const batch of read.batches) seen.push(batch);
      },
      (error: Error & { status?: number }) => {
        assert.equal(error.name, 'FetchError');
        assert.equal(error.message, `${base}${COLLECTION}: HTTP status 500`);
        assert.equal(error.status, 500);
        assert.ok(!error.message.includes('s3cret'));
        return true;
      },
    );
    assert.equal(seen.length, 1, 'the first page was read before the failure; the pull drops it');
    assert.deepEqual(queries(), [
      { added_after: OLD, limit: '2' },
      { added_after: OLD, limit: '2', next: 'n2' },
    ]);
    assert.equal(read.cursor(), OLD);
  });

  it('fails on a page that is not a TAXII envelope', async () => {
    const cases: Array<[unknown, string | RegExp]> = [
      ['{"more": true, "objects": [', /^page 2: not valid JSON: /],
      ['[]', 'page 2: not a TAXII envelope (a JSON object)'],
      [{ objects: { a: 1 } }, 'page 2: "objects" is not an array'],
      [{ more: 'yes' }, 'page 2: "more" is not a boolean'],
      [{ more: true, next: 7 }, 'page 2: "next" is not a string'],
    ];
    for (const [body, message] of cases) {
      replies = [{ headers: dates(T1, T1), body: { more: true, next: 'n2' } }, { body }];
      const { read } = walk(OLD);
      await assert.rejects(collect(read.batches), { name: 'FeedFormatError', message }, JSON.stringify(body));
      assert.equal(read.cursor(), OLD);
    }
  });

  it('fails when the server sends the same next again', async () => {
    replies = [
      { body: { more: true, next: 'again', objects: [] } },
      { body: { more: true, next: 'again', objects: [] } },
    ];
    await assert.rejects(collect(walk(OLD).read.batches), { name: 'FeedFormatError', message: 'page 2: the server sent a "next" it sent before, on page 1: its paging goes in a circle' });
    assert.equal(requests.length, 2);
  });

  it('fails when two next tokens take turns, at the first one met again', async () => {
    replies = [
      { body: { more: true, next: 'a', objects: [] } },
      { body: { more: true, next: 'b', objects: [] } },
      { body: { more: true, next: 'a', objects: [] } },
      { body: { more: true, next: 'b', objects: [] } },
    ];
    await assert.rejects(collect(walk(OLD).read.batches), { name: 'FeedFormatError', message: 'page 3: the server sent a "next" it sent before, on page 1: its paging goes in a circle' });
    assert.equal(requests.length, 3);
  });

  it('fails past maxPages when every page names a new next', async () => {
    replies = Array.from({ length: 10 }, (_, i) => ({ body: { more: true, next: `token-${i}`, objects: [] } }));
    await assert.rejects(collect(walk(OLD, {}, source({ maxPages: 4 })).read.batches), {
      name: 'FeedFormatError',
      message: 'page 5: more than maxPages (4) pages in one pull',
    });
    assert.equal(requests.length, 4, 'the fifth page is never asked for');
  });

  describe('429', () => {
    it('waits out several, up to the total the walk may wait, then fails', async () => {
      replies = [
        { status: 429, headers: { 'Retry-After': '120' } },
        { status: 429, headers: { 'Retry-After': '0' } },
        { status: 429, headers: { 'Retry-After': '200' } },
      ];
      const { read, sleeps } = walk(OLD);
      await assert.rejects(collect(read.batches), {
        name: 'FetchError',
        message: `${base}${COLLECTION}: HTTP status 429, Retry-After 200 s: more than the 300 s a pull waits`,
        status: 429,
      });
      assert.deepEqual(sleeps, [120_000, 1000]);
      assert.equal(requests.length, 3);
    });

    it('fails at once without Retry-After', async () => {
      replies = [{ status: 429 }];
      const { read, sleeps } = walk(OLD);
      await assert.rejects(collect(read.batches), { name: 'FetchError', status: 429 });
      assert.deepEqual(sleeps, []);
    });

    it('also waits out a 503 with Retry-After given as a date', async () => {
      replies = [{ status: 503, headers: { 'Retry-After': new Date(Date.now() + 3000).toUTCString() } }, { body: { more: false } }];
      const { read, sleeps } = walk(OLD);
      await collect(read.batches);
      assert.equal(sleeps.length, 1);
      assert.ok(sleeps[0]! >= 1000 && sleeps[0]! <= 4000, `${sleeps[0]}`);
    });

    it('stops waiting when the walk is aborted', async () => {
      replies = [{ status: 429, headers: { 'Retry-After': '60' } }];
      const controller = new AbortController();
      const { read } = walk(OLD, { signal: controller.signal, sleep: undefined });
      setTimeout(() => controller.abort(), 50);
      const started = Date.now();
      await assert.rejects(collect(read.batches), { name: 'FetchError', message: `${base}${COLLECTION}: aborted` });
      assert.ok(Date.now() - started < 5000);
    });
  });

  it('fetches missing threats by id in groups of 50, following their pages, and tells of the relationships left without one', async () => {
    const targets = Array.from({ length: 51 }, (_, n) => id('malware', 100 + n));
    const relationships = targets.map((target, n) => indicates(n, target));
    replies = [
      { headers: dates(T1, T2), body: { more: false, objects: relationships } },
      // The first 50: two pages, one of them with the revoked version of a malware.
      { body: { more: true, next: 'ids-2', objects: [{ ...MALWARE, id: targets[0] }, { ...MALWARE, id: targets[1], revoked: true }] } },
      { body: { more: false, objects: [{ ...MALWARE, id: targets[2], name: 'Other' }] } },
      // The 51st: the server does not have it.
      { body: { more: false } },
    ];
    const { read, warnings } = walk(OLD, { limit: 1000 });
    const { relations } = await collect(read.batches);
    assert.deepEqual(
      relations.map((relation) => [relation.ref, relation.threat.name]),
      [
        [id('indicator', 0), 'Examplebot'],
        [id('indicator', 2), 'Other'],
      ],
    );
    assert.deepEqual(queries(), [
      { added_after: OLD, limit: '1000' },
      { 'match[id]': targets.slice(0, 50).join(','), limit: '1000' },
      { 'match[id]': targets.slice(0, 50).join(','), limit: '1000', next: 'ids-2' },
      { 'match[id]': targets[50]!, limit: '1000' },
    ]);
    assert.deepEqual(warnings, ['48 "indicates" relationships point to threats the collection does not give; they link nothing']);
    assert.equal(read.cursor(), T2);
  });

  it('compares TAXII timestamps beyond the millisecond and across offsets', () => {
    const cases: Array<[string, string | null, boolean]> = [
      [T1, null, true],
      ['2025-05-02T10:00:00.000002Z', '2025-05-02T10:00:00.000001Z', true],
      ['2025-05-02T10:00:00.000001Z', '2025-05-02T10:00:00.000001Z', false],
      ['2025-05-02T10:00:00.000001000Z', '2025-05-02T10:00:00.000001Z', false],
      ['2025-05-02T10:00:00.1Z', '2025-05-02T10:00:00.099999Z', true],
      ['2025-05-02T10:00:00Z', '2025-05-02T10:00:00.000001Z', false],
      ['2025-05-02T12:00:00.000002+02:00', '2025-05-02T10:00:00.000001Z', true],
      ['2025-05-02T11:59:59+02:00', '2025-05-02T10:00:00Z', false],
    ];
    for (const [a, b, later] of cases) assert.equal(isLater(a, b), later, `${a} > ${b}`);
  });

  it('refuses a limit that is not a positive integer', () => {
    assert.throws(() => walk(OLD, { limit: 0 }), RangeError);
  });
});

describe('readTaxiiCollection against our own TAXII server', () => {
  let ctx: TestContext;
  let ours: Server;
  let origin = '';
  before(async () => {
    ctx = await createTestContext({ overrides: GENEROUS_PLANS });
    ours = ctx.app.listen(0, '127.0.0.1');
    await once(ours, 'listening');
    origin = `http://127.0.0.1:${(ours.address() as AddressInfo).port}`;
  });
  after(async () => {
    ours.close();
    await ctx.close();
  });

  it('walks a collection with next tokens at limit 7, reads every indicator it lists, links every indicates relationship, and resumes with nothing new', async () => {
    const path = `${collectionPath(TEST_COLLECTION)}objects/`;
    const reference = await taxiiGet(ctx.app, `${path}?limit=1000`, ctx.keys.pro!).expect(200);
    assert.equal(reference.body.more, false);
    const objects = reference.body.objects as Array<Record<string, unknown>>;
    const threatTypes = new Set(['malware', 'intrusion-set', 'threat-actor', 'campaign']);
    const live = new Set(objects.filter((o) => threatTypes.has(o.type as string) && o.revoked !== true).map((o) => o.id));
    const indicators = objects.filter((o) => o.type === 'indicator');
    const links = objects.filter((o) => o.type === 'relationship' && o.relationship_type === 'indicates' && live.has(o.target_ref));
    assert.ok(indicators.length > 20 && links.length > 0, `${indicators.length} indicators, ${links.length} links`);

    const from = parseSource({ url: `${origin}${path}`, format: 'taxii', username: 'taxii2', password: ctx.keys.pro! }) as TaxiiSource;
    const first = readTaxiiCollection(from, null, { displayUrl: `${origin}${path}`, limit: 7, now: () => NOW });
    const result = await collect(first.batches);
    // Every indicator is read or skipped (an asn pattern, a retired one past its valid_until), each once.
    const refs = new Set(result.entries.map((entry) => entry.ref));
    assert.equal(refs.size + result.skipped, indicators.length);
    assert.ok(refs.size > indicators.length / 2, `${refs.size} of ${indicators.length} read`);
    assert.deepEqual(new Set(result.relations.map((relation) => `${relation.ref} ${relation.threat.name}`)).size, links.length);
    const lastAdded = reference.headers['x-taxii-date-added-last'];
    assert.equal(first.cursor(), lastAdded);

    const second = readTaxiiCollection(from, first.cursor(), { displayUrl: `${origin}${path}`, limit: 7, now: () => NOW });
    assert.deepEqual(await collect(second.batches), { entries: [], skipped: 0, relations: [] });
    assert.equal(second.cursor(), lastAdded);
  });
});
