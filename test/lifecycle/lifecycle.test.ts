// The lifecycle (docs/interface.md section 3) on SQLite and PostgreSQL: threats retire after 90 days unobserved,
// staff retire and reactivate, indicators that pulls stopped listing age out and come back. A clock
// the test moves drives it: no test sleeps.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { formatStamp } from '../../src/clock.js';
import { importDataset } from '../../src/import/import-file.js';
import { runLifecycle, setThreatRetired } from '../../src/lifecycle/run-lifecycle.js';
import { openPullWorld, PULL_CONFIG, type PullWorld, type StixObject } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';
import { dbOf } from '../helpers/store-db.js';

const DAY = 86_400_000;
const SETTINGS = { threatRetireDays: 90, indicatorRetireDays: 30 } as const;

const threat = (tid: number, name: string, extra: Record<string, unknown>) => ({ tid, threat: name, category: 'malware', risk: 'high', ...extra });

for (const backend of storeBackends()) {
  describe(`lifecycle (${backend.name})`, () => {
    let world: PullWorld;
    let dir: string;
    before(async () => {
      world = await openPullWorld(backend);
      dir = mkdtempSync(join(tmpdir(), 'threatgate-lifecycle-'));
    });
    after(async () => {
      await world.close();
      rmSync(dir, { recursive: true, force: true });
      await backend.cleanup();
    });

    const ago = (days: number) => formatStamp(world.clock.now() - days * DAY);
    const threatOf = async (tid: number) => (await world.api('threat.php', { tid })) as { retired: boolean | null; stamp_retired: string | null };

    it('retires a threat unobserved for more than 90 days: the 89- and 90-day ones stay, the 91-day one retires', async () => {
      const retiredBefore = ago(200);
      await importDataset(
        world.store,
        {
          threats: [
            threat(101, 'Seen 89 days ago', { stamp_added: ago(400), stamp_seen: ago(89) }),
            threat(102, 'Seen 90 days ago', { stamp_added: ago(400), stamp_seen: ago(90) }),
            threat(103, 'Seen 91 days ago', { stamp_added: ago(400), stamp_seen: ago(91) }),
            threat(104, 'Never seen, added 91 days ago', { stamp_added: ago(91) }),
            threat(105, 'Never seen, added 10 days ago', { stamp_added: ago(10) }),
            threat(106, 'Retired long ago', { stamp_added: ago(400), stamp_seen: ago(300), retired: true, stamp_retired: retiredBefore }),
          ],
          feeds: [],
          indicators: [],
          links: [],
        },
        world.clock,
      );
      const counts = await runLifecycle(world.store, SETTINGS, world.clock);
      assert.deepEqual(counts.retiredThreats, [
        { tid: 103, name: 'Seen 91 days ago' },
        { tid: 104, name: 'Never seen, added 91 days ago' },
      ]);
      for (const tid of [101, 102, 105]) assert.notEqual((await threatOf(tid)).retired, true, `tid ${tid}`);
      for (const tid of [103, 104]) {
        const t = await threatOf(tid);
        assert.equal(t.retired, true);
        assert.equal(t.stamp_retired, world.clock.stamp());
      }
      assert.equal((await threatOf(106)).stamp_retired, retiredBefore);
      // A second run right after changes nothing.
      const again = await runLifecycle(world.store, SETTINGS, world.clock);
      assert.deepEqual(again, { retiredThreats: [], agedIndicators: 0 });
    });

    it('staff retire and reactivate a threat; the same state again changes nothing; an unknown tid is refused', async () => {
      assert.equal(await setThreatRetired(world.store, 101, true, world.clock), true);
      assert.equal((await threatOf(101)).retired, true);
      assert.equal(await setThreatRetired(world.store, 101, true, world.clock), false);
      world.clock.advance(60_000);
      assert.equal(await setThreatRetired(world.store, 101, false, world.clock), true);
      const back = await threatOf(101);
      assert.notEqual(back.retired, true);
      assert.equal(back.stamp_retired, null);
      await assert.rejects(setThreatRetired(world.store, 999_999, true, world.clock), /no threat has tid 999999/);
    });

    it('ages out an indicator no source lists for 30 days, leaves imported ones alone, and gives it its risk back when listed again', async () => {
      await importDataset(
        world.store,
        { threats: [], feeds: [], indicators: [{ iid: 900_000, indicator: 'imported.example.org', type: 'domain', risk: 'high', stamp_seen: ago(365) }], links: [] },
        world.clock,
      );
      const list = join(dir, 'list.txt');
      const url = pathToFileURL(list).href;
      writeFileSync(list, 'stays.example.com\nleaves.example.com\n');
      const fid = await world.addSource('Aging list', { url, format: 'text', risk: 'medium' });
      assert.equal((await world.pull(fid)).ok, true);
      writeFileSync(list, 'stays.example.com\n');
      assert.equal((await world.pull(fid)).ok, true);
      const { last: cursor } = await world.taxii();

      // 29 days after it left: not yet.
      world.clock.advance(29 * DAY);
      assert.equal((await runLifecycle(world.store, SETTINGS, world.clock)).agedIndicators, 0);
      world.clock.advance(2 * DAY);
      assert.equal((await runLifecycle(world.store, SETTINGS, world.clock)).agedIndicators, 1);
      const risks = async () => new Map((await world.feedLinks(fid)).map((l) => [l.indicator, l.risk]));
      assert.deepEqual(await risks(), new Map([['stays.example.com', 'medium'], ['leaves.example.com', 'retired']]));
      const imported = await dbOf(world.store).selectFrom('indicators').select('risk').where('iid', '=', 900_000).executeTakeFirst();
      assert.equal(imported?.risk, 'high');
      const feed = (await world.api('feed.php', { fid })) as { indicators: Record<string, number> };
      assert.equal(feed.indicators.retired, 1);

      // Pollers see the expiry after their cursor: a new version with valid_until.
      const expired = (await world.taxii(`&added_after=${encodeURIComponent(cursor!)}`)).objects.filter((o) => o.type === 'indicator');
      assert.deepEqual(expired.map((o) => o.pattern), ["[domain-name:value = 'leaves.example.com']"]);
      assert.equal(typeof expired[0]!.valid_until, 'string');
      assert.equal(await runLifecycle(world.store, SETTINGS, world.clock).then((c) => c.agedIndicators), 0);

      // Listed again: its source's risk back, and a version without the expiry.
      const { last: cursor2 } = await world.taxii();
      writeFileSync(list, 'stays.example.com\nleaves.example.com\n');
      assert.equal((await world.pull(fid)).ok, true);
      assert.equal((await risks()).get('leaves.example.com'), 'medium');
      const back = (await world.taxii(`&added_after=${encodeURIComponent(cursor2!)}`)).objects.filter((o): o is StixObject => o.type === 'indicator');
      assert.deepEqual(back.map((o) => o.pattern), ["[domain-name:value = 'leaves.example.com']"]);
      assert.equal(back[0]!.valid_until, undefined);
    });

    it('a retired threat a pull observes again stays retired, and the log line of the pull names it', async () => {
      const list = join(dir, 'retired-threat.txt');
      writeFileSync(list, 'comeback.example.org\n');
      const fid = await world.addSource('Names a retired threat', { url: pathToFileURL(list).href, format: 'text', threat: 'Retired long ago' });
      const outcome = await world.pull(fid);
      assert.equal(outcome.ok, true);
      assert.equal((await threatOf(106)).retired, true);
      const line = world.logLines.map((l) => JSON.parse(l) as Record<string, unknown>).findLast((e) => e.msg === 'pull' && e.fid === fid);
      assert.deepEqual(line?.retiredThreatsSeen, ['Retired long ago']);
    });

    it('takes the age by type when indicatorRetireDays is an object', async () => {
      const list = join(dir, 'typed.txt');
      writeFileSync(list, '198.51.100.77\nhttp://typed.example.net/x\n');
      const fid = await world.addSource('Typed list', { url: pathToFileURL(list).href, format: 'text' });
      assert.equal((await world.pull(fid)).ok, true);
      writeFileSync(list, '# nothing listed any more, but a comment keeps it from being an outage\n192.0.2.200\n');
      assert.equal((await world.pull(fid)).ok, true);
      world.clock.advance(22 * DAY);
      const byType = { threatRetireDays: 90, indicatorRetireDays: { ip: 21, url: 45, default: 30 } };
      assert.equal((await runLifecycle(world.store, byType, world.clock)).agedIndicators, 1);
      world.clock.advance(24 * DAY);
      // The URL now; also the domain of the earlier test is long gone but was already retired.
      assert.equal((await runLifecycle(world.store, byType, world.clock)).agedIndicators, 1);
      assert.equal(PULL_CONFIG.lifecycle.threatRetireDays, 90);
    });

    it('a value listed again stops aging: its clock from before does not retire it while a source lists it', async () => {
      const list = join(dir, 'relisted.txt');
      writeFileSync(list, 'back.example.com\nsteady.example.com\n');
      const fid = await world.addSource('Relisting list', { url: pathToFileURL(list).href, format: 'text', risk: 'medium' });
      assert.equal((await world.pull(fid)).ok, true);
      writeFileSync(list, 'steady.example.com\n');
      assert.equal((await world.pull(fid)).ok, true);
      world.clock.advance(20 * DAY);
      writeFileSync(list, 'back.example.com\nsteady.example.com\n');
      assert.equal((await world.pull(fid)).ok, true);
      // 31 days after it first left, and listed since.
      world.clock.advance(11 * DAY);
      await runLifecycle(world.store, SETTINGS, world.clock);
      const back = await dbOf(world.store).selectFrom('indicators').select('risk').where('value', '=', 'back.example.com').executeTakeFirst();
      assert.equal(back?.risk, 'medium');
    });

    it('a value two feeds list ages from the last pull that listed it, and a deleted feed leaves its values to age', async () => {
      const riskOf = async (value: string) => (await dbOf(world.store).selectFrom('indicators').select('risk').where('value', '=', value).executeTakeFirst())?.risk;
      const lists = ['shared-a', 'shared-b', 'deleted', 'linker'].map((name) => join(dir, `${name}.txt`));
      const [a, b, deleted, linker] = lists as [string, string, string, string];
      writeFileSync(a, 'shared.example.com\nkept-a.example.com\n');
      writeFileSync(b, 'shared.example.com\nkept-b.example.com\n');
      writeFileSync(deleted, 'orphan.example.com\n');
      writeFileSync(linker, 'orphan.example.com\nkept-linker.example.com\n');
      const [fa, fb, fd, fl] = [
        await world.addSource('Shared A', { url: pathToFileURL(a).href, format: 'text', risk: 'high' }),
        await world.addSource('Shared B', { url: pathToFileURL(b).href, format: 'text', risk: 'low' }),
        await world.addSource('Deleted later', { url: pathToFileURL(deleted).href, format: 'text' }),
        await world.addSource('Linker', { url: pathToFileURL(linker).href, format: 'text' }),
      ];
      for (const fid of [fa, fb, fd, fl]) assert.equal((await world.pull(fid)).ok, true);
      // The linking feed stops listing the orphan (its link stays); A stops listing the shared value.
      writeFileSync(linker, 'kept-linker.example.com\n');
      writeFileSync(a, 'kept-a.example.com\n');
      for (const fid of [fl, fa]) assert.equal((await world.pull(fid)).ok, true);

      // 20 days on B lists it once more, then stops: its 30 days count from that last listing.
      world.clock.advance(20 * DAY);
      assert.equal((await world.pull(fb)).ok, true);
      writeFileSync(b, 'kept-b.example.com\n');
      assert.equal((await world.pull(fb)).ok, true);
      // The deleted feed listed the orphan until now; another feed linked it, so deleting does not retire it.
      assert.equal((await world.pull(fd)).ok, true);
      assert.equal((await world.feeds(['delete', String(fd)], { yes: true })).ok, true);
      assert.notEqual(await riskOf('orphan.example.com'), 'retired');

      world.clock.advance(29 * DAY);
      await runLifecycle(world.store, SETTINGS, world.clock);
      assert.notEqual(await riskOf('shared.example.com'), 'retired');
      assert.notEqual(await riskOf('orphan.example.com'), 'retired');
      world.clock.advance(2 * DAY);
      await runLifecycle(world.store, SETTINGS, world.clock);
      assert.equal(await riskOf('shared.example.com'), 'retired');
      assert.equal(await riskOf('orphan.example.com'), 'retired');
      for (const kept of ['kept-a.example.com', 'kept-b.example.com', 'kept-linker.example.com']) assert.notEqual(await riskOf(kept), 'retired', kept);
    });
  });
}
