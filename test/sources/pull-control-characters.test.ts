// Pulls keep control characters out of the store (docs/interface.md section 11): threat names and aliases lose them, a value holding one
// is rejected and counted. Feeds served over HTTP from a local server, written by the real store; SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { PullOutcome } from '../../src/sources/pull-feed.js';
import { startFeedServer, type FeedServer } from '../helpers/feed-server.js';
import { openPullWorld, type PullWorld } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';
import { dbOf } from '../helpers/store-db.js';

/** C0, DEL and C1: what no stored name may hold. */
const CONTROL = /[\x00-\x1f\x7f-\x9f]/;

/** A csv feed whose threat column carries a terminal's escape sequences, a bell, a tab and a CR, and a URL holding CSI (U+009B). */
const NAMES_CSV = [
  'value,malware',
  '192.0.2.21,"\x1b]0;owned\x07Emo\x1b[31mtet\x1b[0m"',
  '192.0.2.22,"Qak\tBot\x07"',
  '192.0.2.23,"\r=1+1"',
  '192.0.2.24,"\x1b\x07"',
  'http://evil.example/\x9b31m,Zeus',
  '',
].join('\n');

const stixId = (type: string) => `${type}--5c0e1d2a-3b4f-4a6e-8d7c-000000000001`;
const STAMP = '2026-01-01T00:00:00Z';

/** A STIX bundle whose malware, named with ESC and BEL, indicates one address; one alias is clean but for BEL, one is nothing but controls. */
const NAMES_BUNDLE = JSON.stringify({
  type: 'bundle',
  id: stixId('bundle'),
  objects: [
    { type: 'indicator', spec_version: '2.1', id: stixId('indicator'), created: STAMP, modified: STAMP, pattern: "[ipv4-addr:value = '192.0.2.31']", pattern_type: 'stix', valid_from: STAMP },
    { type: 'malware', spec_version: '2.1', id: stixId('malware'), created: STAMP, modified: STAMP, name: '\x1b[5mRing\x07worm\x1b[0m', is_family: true, aliases: ['Ring\x07Worm-B', '\x1b\x1b'] },
    { type: 'relationship', spec_version: '2.1', id: stixId('relationship'), created: STAMP, modified: STAMP, relationship_type: 'indicates', source_ref: stixId('indicator'), target_ref: stixId('malware') },
  ],
});

for (const backend of storeBackends()) {
  describe(`pulls of names and values with control characters (${backend.name})`, () => {
    let server: FeedServer;
    let world: PullWorld;
    let csvPull: PullOutcome;
    let stixPull: PullOutcome;

    /** The threat an address is linked to, as the lookup API gives it. */
    const threatOf = async (value: string) => {
      const row = await dbOf(world.store)
        .selectFrom('threat_links')
        .innerJoin('indicators', 'indicators.iid', 'threat_links.iid')
        .select('threat_links.tid')
        .where('indicators.value', '=', value)
        .executeTakeFirst();
      if (row === undefined) return undefined;
      return (await world.api('threat.php', { tid: Number(row.tid) })) as { threat: string; othernames: string[] };
    };

    before(async () => {
      server = await startFeedServer();
      server.publish('/names.csv', NAMES_CSV, { contentType: 'text/csv' });
      server.publish('/names.json', NAMES_BUNDLE, { contentType: 'application/json' });
      world = await openPullWorld(backend);
      const csvFid = await world.addSource('Hostile names', { url: `${server.base}/names.csv`, format: 'csv', csv: { header: 'first-row', value: 'value', threat: 'malware' } });
      const stixFid = await world.addSource('Hostile bundle', { url: `${server.base}/names.json`, format: 'stix' });
      csvPull = await world.pull(csvFid);
      stixPull = await world.pull(stixFid);
    });
    after(async () => {
      await world?.close();
      await server?.close();
      await backend.cleanup();
    });

    describe('a csv feed naming threats with ESC, BEL, tab and CR', () => {
      it('stores the names without ESC and BEL: what is left of the escape sequences is text no terminal obeys', async () => {
        assert.equal((await threatOf('192.0.2.21'))?.threat, ']0;ownedEmo[31mtet[0m');
      });

      it('turns a tab into a space, and trims a leading CR off as any blank', async () => {
        assert.equal((await threatOf('192.0.2.22'))?.threat, 'Qak Bot');
        assert.equal((await threatOf('192.0.2.23'))?.threat, '=1+1');
      });

      it('keeps the value of a name that was nothing but control characters, linked to no threat', async () => {
        assert.equal(await threatOf('192.0.2.24'), undefined);
      });

      it('rejects and counts the URL holding CSI (U+009B), stores the four addresses', async () => {
        assert.ok(csvPull.ok, JSON.stringify(csvPull));
        assert.deepEqual({ values: csvPull.values, rejected: csvPull.rejected }, { values: 4, rejected: 1 });
        const stored = await dbOf(world.store).selectFrom('indicators').select('value').where('value', 'like', 'http%').execute();
        assert.deepEqual(stored, []);
      });
    });

    describe('a STIX bundle whose malware and aliases hold ESC and BEL', () => {
      it('creates the threat under its name without them, with the aliases that hold more than control characters', async () => {
        assert.ok(stixPull.ok, JSON.stringify(stixPull));
        const threat = await threatOf('192.0.2.31');
        assert.deepEqual({ threat: threat?.threat, othernames: threat?.othernames }, { threat: '[5mRingworm[0m', othernames: ['RingWorm-B'] });
      });
    });

    it('leaves no control character in any stored threat name or name key', async () => {
      const names = await dbOf(world.store).selectFrom('threats').select(['name', 'othernames']).execute();
      const keys = await dbOf(world.store).selectFrom('threat_names').select('name_key').execute();
      const all = [...names.flatMap((t) => [t.name, ...(JSON.parse(t.othernames) as string[])]), ...keys.map((k) => k.name_key)];
      assert.ok(all.length >= 6, JSON.stringify(all));
      assert.deepEqual(all.filter((name) => CONTROL.test(name)), []);
    });
  });
}
