// The misp reader against a MISP feed directory (test/fixtures/feeds/misp/) served over HTTP and read from file://.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { FeedBatch, FeedEntry, FeedRelation } from '../../../src/sources/parsers/feed-entry.js';
import { readMispFeed, type MispReadOptions, type MispSource } from '../../../src/sources/formats/misp-format.js';
import { parseSource } from '../../../src/sources/source-definition.js';

const DIRECTORY = new URL('../../fixtures/feeds/misp/', import.meta.url);
const A = '5f0c2a10-0000-4000-8000-00000000000a';
const B = '5f0c2a10-0000-4000-8000-00000000000b';
const C = '5f0c2a10-0000-4000-8000-00000000000c';
/** Event A's time; C (deleted) is newer, B newest (its publish_timestamp, later than its timestamp). */
const STAMP_A = '1735689600';
const STAMP_C = '1738368000';
const STAMP_B_PUBLISHED = '1740790800';

/** A MISP feed server: the fixture directory under /feed/, or what a test puts in `overrides`; every request logged. */
interface MispServer {
  base: string;
  paths: string[];
  overrides: Map<string, { status: number; body: string }>;
  close(): Promise<void>;
}

async function startMispServer(): Promise<MispServer> {
  const paths: string[] = [];
  const overrides = new Map<string, { status: number; body: string }>();
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    paths.push(path);
    const override = overrides.get(path);
    if (override) return void res.writeHead(override.status, { 'content-type': 'application/json' }).end(override.body);
    const name = /^\/feed\/([\w.-]+\.json)$/.exec(path)?.[1];
    let body: string | undefined;
    try {
      body = name === undefined ? undefined : readFileSync(new URL(name, DIRECTORY), 'utf8');
    } catch {
      body = undefined;
    }
    if (body === undefined) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    res.writeHead(200, { 'content-type': 'application/json' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    paths,
    overrides,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

interface Read {
  entries: FeedEntry[];
  skipped: number;
  relations: FeedRelation[];
  withdrawn: FeedEntry[];
  batches: number;
  cursor: string | null;
}

async function read(url: string, cursor: string | null, options: Partial<MispReadOptions> = {}, extra: Record<string, unknown> = {}): Promise<Read> {
  const source = parseSource({ url, format: 'misp', ...extra }) as MispSource;
  const reader = readMispFeed(source, cursor, { displayUrl: url, ...options });
  const all: Read = { entries: [], skipped: 0, relations: [], withdrawn: [], batches: 0, cursor: null };
  for await (const batch of reader.batches as AsyncIterable<FeedBatch>) {
    all.batches++;
    all.entries.push(...batch.entries);
    all.skipped += batch.skipped;
    all.relations.push(...(batch.relations ?? []));
    all.withdrawn.push(...(batch.withdrawn ?? []));
  }
  all.cursor = reader.cursor();
  return all;
}

const ENTRIES_A: FeedEntry[] = [
  { value: '192.0.2.10', type: 'ip', position: `event ${A} attribute 0`, ref: A },
  { value: '198.51.100.7', type: 'ip', position: `event ${A} attribute 1`, ref: A },
  { value: 'c2.example.com', type: 'domain', position: `event ${A} attribute 2`, ref: A },
  { value: 'Mail.Example.NET', type: 'domain', position: `event ${A} attribute 3`, ref: A },
  { value: 'https://example.com/gate.php?id=1', type: 'url', position: `event ${A} attribute 4`, ref: A },
  { value: 'invoice@example.org', type: 'email', position: `event ${A} attribute 5`, ref: A },
  { value: '33A477C998D353797DF9B7CB0D2100BE', type: 'md5', position: `event ${A} object 0 attribute 1`, ref: A },
  { value: '5660a250d7bd68e76d246c5bda6698ef4c6dde05', type: 'sha1', position: `event ${A} object 0 attribute 2`, ref: A },
  { value: '52831702a2a2d61e1b3d64616f86c657c0d710d2b935b4983d1e7364e4673eb4', type: 'sha256', position: `event ${A} object 0 attribute 3`, ref: A },
];

const RELATIONS_A: FeedRelation[] = [
  // The Galaxy entry and its tag are one threat; the synonym equal to the name (other case) is not an alias.
  { ref: A, threat: { name: 'Slate Osprey', aliases: ['TG-4410', 'Grey Kestrel'], category: 'threat-actor' } },
  { ref: A, threat: { name: 'ExampleLoader', aliases: [], category: 'malware' } },
  // An ATT&CK cluster is named without its id.
  { ref: A, threat: { name: 'ExampleRAT', aliases: [], category: 'malware' } },
];

const SAMPLE_B = `${B}/5f0c2a10-0000-4000-8000-0000000d0002`;
const ENTRIES_B: FeedEntry[] = [
  { value: '2001:db8::5', type: 'ip', position: `event ${B} attribute 0`, ref: B },
  { value: '2001:db8::6', type: 'ip', position: `event ${B} attribute 1`, ref: B },
  // An attribute with a cluster of its own has a ref of its own.
  { value: 'a494402ffd18cf67031da3128595a309c6fd716f703ff28005476eed8a2f876e', type: 'sha256', position: `event ${B} attribute 2`, ref: SAMPLE_B },
];

const EXAMPLE_BOT = { name: 'ExampleBot', aliases: ['ExBot'], category: 'botnet' };
const RELATIONS_B: FeedRelation[] = [
  { ref: SAMPLE_B, threat: EXAMPLE_BOT },
  { ref: SAMPLE_B, threat: { name: 'ExampleLocker', aliases: ['ExLocker', 'Example Locker'], category: 'ransomware' } },
  { ref: B, threat: EXAMPLE_BOT },
];

/** Skipped in A: text, filename|md5, the object's filename. In B: domain|ip. */
const SKIPPED = { A: 3, B: 1, C: 0 };

/**
 * Withdrawn: in A, to_ids false, a deleted attribute, the deleted object's address; in B, to_ids "0";
 * in C, a deleted event, each attribute of a type that gives values.
 */
const WITHDRAWN_A: FeedEntry[] = [
  { value: 'benign.example.org', type: 'domain', position: `event ${A} attribute 6` },
  { value: '203.0.113.99', type: 'ip', position: `event ${A} attribute 7` },
  { value: '203.0.113.98', type: 'ip', position: `event ${A} object 1 attribute 0` },
];
const WITHDRAWN_B: FeedEntry[] = [{ value: 'http://example.net/panel/', type: 'url', position: `event ${B} attribute 3` }];
const WITHDRAWN_C: FeedEntry[] = [
  { value: '192.0.2.200', type: 'ip', position: `event ${C} attribute 0` },
  { value: 'withdrawn.example.com', type: 'domain', position: `event ${C} attribute 1` },
];

describe('readMispFeed', () => {
  let server: MispServer;
  before(async () => {
    server = await startMispServer();
  });
  after(() => server.close());
  beforeEach(() => {
    server.paths.length = 0;
    server.overrides.clear();
  });
  const feedUrl = () => `${server.base}/feed/`;

  describe('a first pull (no cursor)', () => {
    it('reads every event, oldest first, with the values of the listed attribute types and |port address parts', async () => {
      const result = await read(feedUrl(), null);
      assert.deepEqual(result.entries, [...ENTRIES_A, ...ENTRIES_B]);
      assert.deepEqual(server.paths, ['/feed/manifest.json', `/feed/${A}.json`, `/feed/${C}.json`, `/feed/${B}.json`]);
      assert.equal(result.batches, 3);
    });

    it('counts as skipped the attributes of other types, and nothing else', async () => {
      const result = await read(feedUrl(), null);
      assert.equal(result.skipped, SKIPPED.A + SKIPPED.B + SKIPPED.C);
    });

    it('withdraws, without a ref: to_ids false, deleted attributes and objects, every attribute of a deleted event', async () => {
      const result = await read(feedUrl(), null);
      assert.deepEqual(result.withdrawn, [...WITHDRAWN_A, ...WITHDRAWN_C, ...WITHDRAWN_B]);
    });

    it('gives the threat-actor and malware clusters of Galaxy entries and misp-galaxy tags as relations, and ignores other galaxies', async () => {
      const result = await read(feedUrl(), null);
      assert.deepEqual(result.relations, [...RELATIONS_A, ...RELATIONS_B]);
      assert.ok(!result.relations.some((r) => r.threat.name.startsWith('Spearphishing')), 'attack patterns are not threats');
      assert.ok(!result.relations.some((r) => r.threat.name === 'Withdrawn Actor'), 'a deleted event gives no threat');
    });

    it('ends with the cursor at the newest event time, its publish_timestamp when later than its timestamp', async () => {
      assert.equal((await read(feedUrl(), null)).cursor, STAMP_B_PUBLISHED);
    });

    it('reads to_ids false attributes too with onlyIds false', async () => {
      const result = await read(feedUrl(), null, { onlyIds: false });
      const values = result.entries.map((e) => e.value);
      assert.ok(values.includes('benign.example.org'));
      assert.ok(values.includes('http://example.net/panel/'));
      assert.ok(!values.includes('203.0.113.99'), 'deleted stays out');
      assert.ok(!values.includes('203.0.113.98'), 'an attribute of a deleted object stays out');
      assert.equal(result.skipped, SKIPPED.A + SKIPPED.B + SKIPPED.C);
      assert.deepEqual(result.withdrawn, [...WITHDRAWN_A.slice(1), ...WITHDRAWN_C]);
    });

    it('gives the same with one event file fetched at a time', async () => {
      const result = await read(feedUrl(), null, { concurrency: 1 });
      assert.deepEqual(result.entries, [...ENTRIES_A, ...ENTRIES_B]);
      assert.deepEqual(result.relations, [...RELATIONS_A, ...RELATIONS_B]);
    });
  });

  describe('a later pull (the previous cursor)', () => {
    it('fetches only the events newer than the cursor', async () => {
      const result = await read(feedUrl(), STAMP_A);
      assert.deepEqual(server.paths, ['/feed/manifest.json', `/feed/${C}.json`, `/feed/${B}.json`]);
      assert.deepEqual(result.entries, ENTRIES_B);
      assert.deepEqual(result.relations, RELATIONS_B);
      assert.equal(result.skipped, SKIPPED.B + SKIPPED.C);
      assert.equal(result.cursor, STAMP_B_PUBLISHED);
    });

    it('reads an event whose publish_timestamp, not its timestamp, is after the cursor', async () => {
      // B's timestamp (1740787200) is before this cursor; it was published after it.
      const result = await read(feedUrl(), '1740790000');
      assert.deepEqual(server.paths, ['/feed/manifest.json', `/feed/${B}.json`]);
      assert.deepEqual(result.entries, ENTRIES_B);
    });

    it('fetches only the manifest when nothing is newer, and keeps the cursor', async () => {
      const result = await read(feedUrl(), STAMP_B_PUBLISHED);
      assert.deepEqual(server.paths, ['/feed/manifest.json']);
      assert.deepEqual(result, { entries: [], skipped: 0, relations: [], withdrawn: [], batches: 0, cursor: STAMP_B_PUBLISHED });
    });

    it('reads everything again when the cursor is not a time', async () => {
      const result = await read(feedUrl(), 'not-a-time');
      assert.equal(result.entries.length, ENTRIES_A.length + ENTRIES_B.length);
      assert.equal(result.cursor, STAMP_B_PUBLISHED);
    });
  });

  describe('feed URLs', () => {
    it('takes a URL naming manifest.json, or the directory without its trailing slash, as the directory', async () => {
      for (const url of [`${server.base}/feed/manifest.json`, `${server.base}/feed`]) {
        assert.equal((await read(url, STAMP_C)).entries.length, ENTRIES_B.length, url);
      }
    });

    it('reads a feed directory on disk through file://', async () => {
      const result = await read(DIRECTORY.href, null);
      assert.deepEqual(result.entries, [...ENTRIES_A, ...ENTRIES_B]);
      assert.equal(result.cursor, STAMP_B_PUBLISHED);
    });
  });

  describe('manifests as they come', () => {
    it('skips and counts keys that are not uuids without fetching them, and reads events without a usable time on every pull', async () => {
      const manifest = {
        '../../etc/passwd': { timestamp: '1800000000' },
        [A]: { info: 'no time' },
        [B]: { timestamp: 1700000000 },
      };
      server.overrides.set('/feed/manifest.json', { status: 200, body: JSON.stringify(manifest) });
      const result = await read(feedUrl(), '1750000000');
      assert.deepEqual(server.paths, ['/feed/manifest.json', `/feed/${A}.json`]);
      assert.equal(result.skipped, 1 + SKIPPED.A);
      assert.equal(result.cursor, '1750000000');
    });

    it('refuses a manifest that lists one event twice (in two cases), before fetching any event', async () => {
      const manifest = { [A]: { timestamp: 1700000000 }, [A.toUpperCase()]: { timestamp: 1700000001 } };
      server.overrides.set('/feed/manifest.json', { status: 200, body: JSON.stringify(manifest) });
      await assert.rejects(read(feedUrl(), null), { name: 'FeedFormatError', message: `manifest.json: event ${A.toUpperCase()} is listed twice` });
      assert.deepEqual(server.paths, ['/feed/manifest.json']);
    });

    it('refuses a manifest with more new events than maxPages, before fetching any event', async () => {
      await assert.rejects(read(feedUrl(), null, {}, { maxPages: 2 }), { name: 'FeedFormatError', message: 'manifest.json: 3 events to read, more than maxPages (2) in one pull' });
      assert.deepEqual(server.paths, ['/feed/manifest.json']);
    });

    it('refuses a manifest that is not an object keyed by uuid', async () => {
      server.overrides.set('/feed/manifest.json', { status: 200, body: '[]' });
      await assert.rejects(read(feedUrl(), null), { name: 'FeedFormatError', message: 'manifest.json: not an object keyed by event uuid' });
    });
  });

  describe('failures throw, so the pull keeps nothing', () => {
    it('a manifest that cannot be fetched', async () => {
      server.overrides.set('/feed/manifest.json', { status: 500, body: '{}' });
      await assert.rejects(read(feedUrl(), null), { name: 'FetchError', message: `${server.base}/feed/manifest.json: HTTP status 500`, status: 500 });
    });

    it('an event that cannot be fetched, after earlier events were read', async () => {
      server.overrides.set(`/feed/${B}.json`, { status: 404, body: '{}' });
      await assert.rejects(read(feedUrl(), null), { name: 'FetchError', message: `${server.base}/feed/${B}.json: HTTP status 404` });
    });

    it('an event that is not JSON, or has no Event object', async () => {
      server.overrides.set(`/feed/${A}.json`, { status: 200, body: '{"Event": {"Attribute": [' });
      await assert.rejects(read(feedUrl(), null), { name: 'FeedFormatError', message: `${A}.json: not valid JSON (Unexpected end of JSON input)` });
      server.overrides.set(`/feed/${A}.json`, { status: 200, body: '{"response": []}' });
      await assert.rejects(read(feedUrl(), null), { name: 'FeedFormatError', message: `${A}.json: no "Event" object` });
    });

    it('names the configured URL in messages, not the resolved one', async () => {
      server.overrides.set('/feed/manifest.json', { status: 503, body: '{}' });
      await assert.rejects(read(feedUrl(), null, { displayUrl: 'https://${env:MISP_HOST}/feed/' }), { message: 'https://${env:MISP_HOST}/feed/manifest.json: HTTP status 503' });
    });

    it('stops fetching when the signal aborts', async () => {
      const controller = new AbortController();
      controller.abort();
      await assert.rejects(read(feedUrl(), null, { signal: controller.signal }), { name: 'FetchError', message: /aborted$/ });
    });
  });
});
