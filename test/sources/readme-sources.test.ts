// docs/feeds.md's ready-to-paste sources, pulled as written from local copies of their feeds' shapes: each parses, reads values
// from the layout its feed really has (Feodo Tracker's header is its first row, not a comment), and creates its
// `threat` with the category it names. SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { PullOutcome } from '../../src/sources/pull-feed.js';
import { parseSource } from '../../src/sources/source-definition.js';
import { startFeedServer, type FeedServer } from '../helpers/feed-server.js';
import { openPullWorld, type PullWorld } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';

const FEEDS_DOC = readFileSync(new URL('../../docs/feeds.md', import.meta.url), 'utf8');

/** The JSON blocks of docs/feeds.md's "Ready-to-paste sources" section, up to its next heading. */
function readmeSources(): Record<string, unknown>[] {
  const start = FEEDS_DOC.indexOf('\n## Ready-to-paste sources\n');
  assert.ok(start >= 0, 'docs/feeds.md has a "Ready-to-paste sources" section');
  const section = FEEDS_DOC.slice(start + 1, FEEDS_DOC.indexOf('\n#', start + 2));
  return [...section.matchAll(/```json\n([\s\S]*?)```/g)].map((match) => JSON.parse(match[1]!) as Record<string, unknown>);
}

/** The shape we hold of each example's feed (test/fixtures), by the example's URL. */
const SHAPES: Readonly<Record<string, string>> = {
  'https://www.spamhaus.org/drop/drop_v4.json': 'feeds/drop_v4.json',
  'https://feodotracker.abuse.ch/downloads/ipblocklist.csv': 'feeds-shapes/feodo-ipblocklist.csv',
  'https://urlhaus.abuse.ch/downloads/csv_recent/': 'feeds-shapes/urlhaus.csv',
  'https://threatfox.abuse.ch/export/csv/recent/': 'feeds-shapes/threatfox.csv',
  'https://openphish.com/feed.txt': 'feeds/openphish.txt',
  'https://lists.blocklist.de/lists/all.txt': 'feeds/blocklist-de.txt',
  'https://threatfox.abuse.ch/export/json/recent/': 'feeds-shapes/threatfox-full.json',
  'https://raw.githubusercontent.com/StevenBlack/hosts/master/hosts': 'feeds-shapes/stevenblack-hosts.txt',
};
/** Examples not pulled here, and where their shape is pulled instead. */
const PULLED_ELSEWHERE: Readonly<Record<string, string>> = {
  'https://threatfox.abuse.ch/export/csv/full/': 'a zip archive: test/sources/pull-compressed.test.ts',
};

for (const backend of storeBackends()) {
  describe(`docs/feeds.md's ready-to-paste sources (${backend.name})`, () => {
    const examples = readmeSources();
    let server: FeedServer;
    let world: PullWorld;
    const outcomes: { url: string; outcome: PullOutcome }[] = [];
    const threat = (name: string) => world.api('threat.php', { threat: name }) as Promise<{ threat: string; category: string }>;

    before(async () => {
      server = await startFeedServer();
      world = await openPullWorld(backend);
      for (const [i, example] of examples.entries()) {
        const url = example.url as string;
        const shape = SHAPES[url];
        if (shape === undefined) continue;
        const path = `/${i}/${shape.split('/').pop()}`;
        server.publish(path, readFileSync(new URL(`../fixtures/${shape}`, import.meta.url), 'utf8'));
        const fid = await world.addSource(`ready-to-paste example ${i}`, { ...example, url: `${server.base}${path}` });
        outcomes.push({ url, outcome: await world.pull(fid) });
      }
    });
    after(async () => {
      await world?.close();
      await server?.close();
      await backend.cleanup();
    });

    it('has an example for each shape we hold, and each example parses as a source', () => {
      assert.ok(examples.length >= Object.keys(SHAPES).length, `${examples.length} examples`);
      for (const example of examples) {
        assert.doesNotThrow(() => parseSource(example), JSON.stringify(example));
        const url = example.url as string;
        assert.ok(SHAPES[url] !== undefined || PULLED_ELSEWHERE[url] !== undefined, `docs/feeds.md's example for ${url} has no shape to pull`);
      }
    });

    it('pulls values from each feed\'s shape with the example as written', () => {
      assert.equal(outcomes.length, examples.filter((e) => SHAPES[e.url as string] !== undefined).length);
      for (const { url, outcome } of outcomes) {
        assert.ok(outcome.ok, `${url}: ${!outcome.ok && outcome.reason}`);
        assert.ok(outcome.values > 0, `${url} lists values`);
      }
      const feodo = outcomes.find((o) => o.url.startsWith('https://feodotracker.abuse.ch/'))?.outcome;
      assert.ok(feodo?.ok && feodo.values === 4 && feodo.skipped === 0, JSON.stringify(feodo));
    });

    it('gives a source\'s threat the category the example names, and a csv column\'s threats category malware', async () => {
      assert.equal((await threat('Spamhaus DROP')).category, 'abuse');
      assert.equal((await threat('Phishing')).category, 'phishing');
      // Feodo Tracker's malware column, read from the first row's names.
      assert.equal((await threat('Dridex')).category, 'malware');
    });
  });
}
