// The hosts reader (docs/sources.md, "Feed shapes"): ADDRESS NAME [NAME...] lines, the address dropped, every name a domain, the preamble's local names left out.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { FeedBatch } from '../../../src/sources/parsers/feed-entry.js';
import { readHosts } from '../../../src/sources/parsers/read-hosts.js';
import { chunked, CUTS } from './feed-chunks.js';

const shape = (name: string) => readFileSync(new URL(`../../fixtures/feeds-shapes/${name}`, import.meta.url));
/** The batches read in every cut of feed-chunks.ts, joined with their skip reasons; each cut must read the same. */
async function readEveryWay(body: Buffer | string, reader: typeof readHosts): Promise<FeedBatch> {
  const results: FeedBatch[] = [];
  for (const cut of CUTS) {
    const all: FeedBatch = { entries: [], skipped: 0 };
    for await (const batch of reader(chunked(body, cut.size, cut.text))) {
      all.entries.push(...batch.entries);
      all.skipped += batch.skipped;
      if (batch.skipReasons !== undefined) (all.skipReasons ??= []).push(...batch.skipReasons);
    }
    results.push(all);
  }
  for (const [i, other] of results.entries()) assert.deepEqual(other, results[0], `read ${CUTS[i]!.name}`);
  return results[0]!;
}

const domain = (value: string, line: number) => ({ value, type: 'domain', position: `line ${line}` });

describe('readHosts', () => {
  describe('a StevenBlack-like unified hosts file with the standard preamble', () => {
    it('gives every blocked name as a domain, with none of the preamble\'s local names and no address', async () => {
      const { entries, skipped, skipReasons } = await readEveryWay(shape('stevenblack-hosts.txt'), readHosts);
      assert.deepEqual(entries, [
        domain('ads.example.com', 35),
        domain('Tracker.Example.NET.', 36),
        domain('banners.example.org', 37),
        domain('banners-cdn.example.org', 37),
        domain('malware-drop.example.com', 42),
        domain('ads.example.com', 43),
        domain('phish-login.example.net', 44),
        // Not a name the pull accepts; the pull rejects and counts it, as any bad value.
        domain('bad_name!.example.com', 45),
      ]);
      assert.equal(skipped, 0, 'the preamble is no skipped row');
      assert.equal(skipReasons, undefined);
    });
  });

  describe('the other hosts shapes', () => {
    it('reads URLhaus\'s tab-separated hostfile and a Windows-style line of several names', async () => {
      const body = '################\n# abuse.ch URLhaus Host file\n################\n127.0.0.1\tmalware.example.com\n127.0.0.1\tpayload.example.net\tcdn.payload.example.net\r\n';
      assert.deepEqual((await readEveryWay(body, readHosts)).entries, [domain('malware.example.com', 4), domain('payload.example.net', 5), domain('cdn.payload.example.net', 5)]);
    });

    it('takes any address as the sink, IPv6 and zoned ones too', async () => {
      const body = '203.0.113.1 one.example.com\n:: two.example.com\n::1 three.example.com\nfe80::1%eth0 four.example.com\n';
      assert.deepEqual((await readEveryWay(body, readHosts)).entries.map((e) => e.value), ['one.example.com', 'two.example.com', 'three.example.com', 'four.example.com']);
    });

    it('reads a domains-only line (AdGuard\'s and Pi-hole\'s plain lists) as its one name', async () => {
      const body = '# AdGuard-like domains list\nads.example.org\n  tracker.example.org  # trailing comment\nlocalhost\n';
      assert.deepEqual((await readEveryWay(body, readHosts)).entries, [domain('ads.example.org', 2), domain('tracker.example.org', 3)]);
    });

    it('skips comment lines as the text format does, and cuts a line at "#"', async () => {
      const body = '; a Spamhaus-style note\n// another\n0.0.0.0 kept.example.com#no space before the comment\n0.0.0.0 # nothing but a comment\n';
      const read = await readEveryWay(body, readHosts);
      assert.deepEqual(read.entries, [domain('kept.example.com', 3)]);
      assert.equal(read.skipped, 1, 'the address left alone by its comment');
    });
  });

  describe('lines that are no hosts lines', () => {
    it('skips and counts an address without a name and a line of words without an address, saying why', async () => {
      const body = '0.0.0.0\nexample.com example.net\n0.0.0.0 fine.example.com\n';
      assert.deepEqual(await readEveryWay(body, readHosts), {
        entries: [domain('fine.example.com', 3)],
        skipped: 2,
        skipReasons: ['line 1: an address without a name', 'line 2: "example.com" is not an address: a hosts line is ADDRESS NAME [NAME...]'],
      });
    });

    it('leaves out a name that is itself an address, as the preamble\'s "0.0.0.0 0.0.0.0"', async () => {
      assert.deepEqual(await readEveryWay('0.0.0.0 0.0.0.0\n0.0.0.0 192.0.2.1 kept.example.com\n', readHosts), { entries: [domain('kept.example.com', 2)], skipped: 0 });
    });

    it('quotes a long first word in its reason, cut, with its control characters escaped', async () => {
      const word = `\u001b${'x'.repeat(100)}`;
      const { skipReasons } = await readEveryWay(`${word} y.example.com\n`, readHosts);
      assert.deepEqual(skipReasons, [`line 1: ${JSON.stringify(`${word.slice(0, 64)}...`)} is not an address: a hosts line is ADDRESS NAME [NAME...]`]);
    });
  });
});
