// Feed bodies under every framing a real server uses (framing-server.ts: HTTP/1.0 close-delimited as python's http.server, lengths, chunks, a reset, a short length), 1 KB to 8 MB, pulled through the real pull into a real store: a whole body is pulled exactly, a cut one fails that pull naming why, and pulls go on.
import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { parseSource } from '../../../src/sources/source-definition.js';
import { fetchSource } from '../../../src/sources/transports/fetch-source.js';
import { addressLines } from '../../helpers/feed-server.js';
import { BROKEN_FRAMINGS, COMPLETE_FRAMINGS, startFramingServer, type Framing, type FramingServer } from '../../helpers/framing-server.js';
import { openPullWorld, type PullWorld } from '../../helpers/pull-harness.js';
import { storeBackends } from '../../helpers/store-backends.js';
import { dbOf } from '../../helpers/store-db.js';

const KB = 1024;
const SIZES = [1 * KB, 60 * KB, 1024 * KB, 8 * 1024 * KB];
/**
 * The sizes a reset is served at. At the largest size the fixture's reset after half the body
 * sometimes reached the client as a clean end of the connection with no error (Node saw
 * end-of-stream, not ECONNRESET): on the wire that is a complete close-delimited body, which no
 * client can tell from a short one, so that case could not fail reliably.
 */
const RESET_SIZES = SIZES.filter((size) => size <= 1024 * KB);
/** Values a body lists at most; the rest of a large body is comment lines, so 8 MB pulls in seconds yet arrives as 8 MB. */
const MAX_VALUES = 4000;

/** A text list of exactly `size` bytes: distinct addresses from `from`, then comment lines. */
function listOf(size: number, from: number): { body: string; values: string[] } {
  const count = Math.min(MAX_VALUES, Math.floor(size / 16));
  let body = addressLines(from, count);
  while (body.length > size) body = body.slice(0, body.lastIndexOf('\n', body.length - 2) + 1);
  const values = body.trim().split('\n');
  const padding = size - body.length;
  const line = `# ${'padding '.repeat(8)}\n`;
  body += line.repeat(Math.floor(padding / line.length));
  const rest = size - body.length;
  if (rest > 0) body += rest === 1 ? '\n' : `#${'-'.repeat(rest - 2)}\n`;
  return { body, values };
}

/** `/FRAMING/SIZE/FROM.txt`: each pull gets its own body, under the framing its path names. */
const pathOf = (framing: Framing, size: number, from: number) => `/${framing}/${size}/${from}.txt`;
const framingOf = (path: string) => path.split('/')[1] as Framing;
const bodyOf = (path: string) => {
  const [, , size, from] = path.split('/');
  return listOf(Number(size), Number.parseInt(from!, 10)).body;
};

const label = (size: number) => (size >= 1024 * KB ? `${size / 1024 / KB} MB` : `${size / KB} KB`);

describe('fetchSource under every framing, read by a slow consumer', () => {
  let server: FramingServer;
  let gzipped: FramingServer;
  before(async () => {
    const options = { framing: (request: { path: string }) => framingOf(request.path), answer: (request: { path: string }) => ({ body: bodyOf(request.path) }) };
    server = await startFramingServer(options);
    gzipped = await startFramingServer({ ...options, gzip: true });
  });
  after(async () => {
    await server.close();
    await gzipped.close();
  });

  /** The body read a chunk at a time with a pause after each, so the server's bytes wait on the client. */
  async function slowly(url: string): Promise<string> {
    const result = await fetchSource(parseSource({ url, format: 'text', timeoutSeconds: 30 }), {});
    assert.equal(result.kind, 'body');
    if (result.kind !== 'body') return '';
    const chunks: Buffer[] = [];
    for await (const chunk of result.body) {
      chunks.push(Buffer.from(chunk as Uint8Array));
      await delay(3);
    }
    return Buffer.concat(chunks).toString('utf8');
  }

  for (const framing of COMPLETE_FRAMINGS) {
    for (const size of [60 * KB, 1024 * KB]) {
      it(`${framing}, ${label(size)}: every byte, plain and gzip`, async () => {
        const path = pathOf(framing, size, 1);
        assert.equal(await slowly(`${server.base}${path}`), bodyOf(path));
        assert.equal(await slowly(`${gzipped.base}${path}`), bodyOf(path));
      });
    }
  }

  for (const framing of BROKEN_FRAMINGS) {
    it(`${framing}: fails naming the connection's end, plain and gzip`, async () => {
      for (const base of [server.base, gzipped.base]) {
        await assert.rejects(slowly(`${base}${pathOf(framing, 1024 * KB, 1)}`), { message: /: connection closed before the body ended \(ECONNRESET\)$/ });
      }
    });
  }
});

for (const backend of storeBackends()) {
  describe(`pulls under every framing (${backend.name})`, () => {
    let server: FramingServer;
    let world: PullWorld;
    let next = 0;
    /** The feed's linked values, from the store (the API pages them, to two pages for the test's plan). */
    const linked = async (fid: number) =>
      (await dbOf(world.store).selectFrom('feed_links').innerJoin('indicators', 'indicators.iid', 'feed_links.iid').select('indicators.value').where('feed_links.fid', '=', fid).execute())
        .map((row) => row.value)
        .sort();
    const lastError = async (fid: number) =>
      (await dbOf(world.store).selectFrom('feed_sources').select('last_error').where('fid', '=', fid).executeTakeFirstOrThrow()).last_error;

    before(async () => {
      server = await startFramingServer({ framing: (request) => framingOf(request.path), answer: (request) => ({ body: bodyOf(request.path) }) });
      world = await openPullWorld(backend);
    });
    after(async () => {
      await world?.close();
      await server?.close();
      await backend.cleanup();
    });

    /** A new feed of `framing` and `size`, its values distinct from every other feed's. */
    async function feedOf(framing: Framing, size: number): Promise<{ fid: number; values: string[] }> {
      // Address lines hold 2^17 distinct values: each feed takes the next ones.
      const from = next;
      next += listOf(size, from).values.length;
      const fid = await world.addSource(`${framing} ${label(size)} ${from}`, { url: `${server.base}${pathOf(framing, size, from)}`, format: 'text', timeoutSeconds: 60 });
      return { fid, values: listOf(size, from).values };
    }

    for (const framing of COMPLETE_FRAMINGS) {
      for (const size of SIZES) {
        it(`${framing}, ${label(size)}: the pull succeeds with exactly the served values`, async () => {
          const { fid, values } = await feedOf(framing, size);
          const outcome = await world.pull(fid);
          assert.equal(outcome.ok, true, JSON.stringify(outcome));
          assert.deepEqual(await linked(fid), [...values].sort());
        });
      }
    }

    for (const framing of BROKEN_FRAMINGS) {
      for (const size of framing === 'reset-mid-body' ? RESET_SIZES : SIZES) {
        it(`${framing}, ${label(size)}: the pull fails naming the cause, and the next feed's pull succeeds`, async () => {
          const broken = await feedOf(framing, size);
          const outcome = await world.pull(broken.fid);
          assert.equal(outcome.ok, false);
          const reason = /connection closed before the body ended \(ECONNRESET\)$/;
          assert.match((outcome as { reason: string }).reason, reason);
          assert.match(String(await lastError(broken.fid)), reason);
          assert.deepEqual(await linked(broken.fid), []);
          const whole = await feedOf('http10-close', size);
          const after = await world.pull(whole.fid);
          assert.equal(after.ok, true, JSON.stringify(after));
          assert.deepEqual(await linked(whole.fid), [...whole.values].sort());
        });
      }
    }
  });
}
