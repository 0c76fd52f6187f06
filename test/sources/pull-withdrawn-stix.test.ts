// A STIX bundle source that grades and withdraws its indicators (docs/interface.md section 10, "Withdrawn values"): each value takes the risk its
// indicator's `confidence` stands for (the source's risk when it has none); on a later pull a revoked or expired
// indicator retires its value at once, where a value merely left out keeps its risk until the lifecycle ages it
// out, and a value another indicator of the same bundle still asserts stays listed. SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { PullOutcome } from '../../src/sources/pull-feed.js';
import { startFeedServer, type FeedServer } from '../helpers/feed-server.js';
import { openPullWorld, type PullWorld } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';
import { dbOf } from '../helpers/store-db.js';

const id = (n: number) => `indicator--0b7c5e2a-4d1f-4c3e-9a8b-${String(n).padStart(12, '0')}`;
const indicator = (n: number, value: string, extra: Record<string, unknown> = {}) => ({
  type: 'indicator', spec_version: '2.1', id: id(n), created: '2026-01-01T00:00:00Z', modified: '2026-01-01T00:00:00Z',
  pattern: value.includes('.example.') ? `[domain-name:value = '${value}']` : `[ipv4-addr:value = '${value}']`, pattern_type: 'stix', valid_from: '2026-01-01T00:00:00Z', ...extra,
});
const bundle = (objects: unknown[]) => JSON.stringify({ type: 'bundle', id: 'bundle--0b7c5e2a-4d1f-4c3e-9a8b-000000000000', objects });
/** A later version of an indicator. */
const LATER = { modified: '2026-02-01T00:00:00Z' };

const LOW = '198.51.100.61';
const REVOKED = '198.51.100.62';
const EXPIRED = '198.51.100.63';
const LEFT_OUT = '198.51.100.64';
/** Given by two indicators; the later bundle revokes one and raises the other's confidence. */
const TWICE = 'twice.example.com';

const FIRST = bundle([
  indicator(1, LOW, { confidence: 15 }),
  indicator(2, REVOKED, { confidence: 85 }),
  indicator(3, EXPIRED),
  indicator(4, LEFT_OUT, { confidence: 100 }),
  indicator(5, TWICE, { confidence: 50 }),
  indicator(6, TWICE, { confidence: 0 }),
]);
const SECOND = bundle([
  indicator(1, LOW, { confidence: 15 }),
  indicator(2, REVOKED, { ...LATER, confidence: 85, revoked: true }),
  indicator(3, EXPIRED, { ...LATER, valid_until: '2026-02-01T00:00:00Z' }),
  indicator(5, TWICE, { ...LATER, confidence: 50, revoked: true }),
  indicator(6, TWICE, { ...LATER, confidence: 70 }),
]);

const counts = (outcome: PullOutcome) => (outcome.ok ? { ok: true, values: outcome.values, newIndicators: outcome.newIndicators, withdrawn: outcome.withdrawn } : { ok: false, reason: outcome.reason });

for (const backend of storeBackends()) {
  describe(`a STIX bundle that grades and withdraws its indicators (${backend.name})`, () => {
    let server: FeedServer;
    let world: PullWorld;
    let fid = 0;
    let first: PullOutcome;

    const risks = async () =>
      Object.fromEntries((await dbOf(world.store).selectFrom('indicators').select(['value', 'risk']).orderBy('value').execute()).map((r) => [r.value, r.risk]));
    const listing = async () =>
      (await dbOf(world.store).selectFrom('source_listings as l').innerJoin('indicators as i', 'i.iid', 'l.iid').select('i.value').where('l.fid', '=', fid).execute())
        .map((r) => r.value)
        .sort();

    before(async () => {
      server = await startFeedServer();
      server.publish('/bundle.json', FIRST);
      world = await openPullWorld(backend);
      fid = await world.addSource('Graded STIX', { url: `${server.base}/bundle.json`, format: 'stix', risk: 'medium' });
      first = await world.pull(fid);
    });
    after(async () => {
      await world?.close();
      await server?.close();
      await backend.cleanup();
    });

    it('gives each value the risk of its confidence, the source\'s without one, the higher of two', async () => {
      assert.deepEqual(counts(first), { ok: true, values: 5, newIndicators: 5, withdrawn: 0 });
      assert.deepEqual(await risks(), { [LOW]: 'low', [REVOKED]: 'high', [EXPIRED]: 'medium', [LEFT_OUT]: 'critical', [TWICE]: 'medium' });
    });

    describe('a later bundle that revokes one, expires one, leaves one out and revokes one of a value\'s two indicators', () => {
      let second: PullOutcome;
      before(async () => {
        server.publish('/bundle.json', SECOND);
        second = await world.pull(fid);
      });

      it('withdraws the revoked and the expired values, not the one another indicator still gives', () => {
        assert.deepEqual(counts(second), { ok: true, values: 2, newIndicators: 0, withdrawn: 2 });
      });

      it('retires the revoked and expired values at once, keeps the left-out one\'s risk for the lifecycle, and the twice-given value listed at its new confidence', async () => {
        assert.deepEqual(await risks(), { [LOW]: 'low', [REVOKED]: 'retired', [EXPIRED]: 'retired', [LEFT_OUT]: 'critical', [TWICE]: 'high' });
        assert.deepEqual(await listing(), [LOW, TWICE].sort());
      });
    });

    describe('a last bundle that revokes every indicator it still gives', () => {
      let third: PullOutcome;
      before(async () => {
        server.publish('/bundle.json', bundle([indicator(1, LOW, { ...LATER, revoked: true }), indicator(6, TWICE, { ...LATER, revoked: true })]));
        third = await world.pull(fid);
      });

      it('succeeds with no value listed: a source that says it withdrew everything is no outage', () => {
        assert.deepEqual(counts(third), { ok: true, values: 0, newIndicators: 0, withdrawn: 2 });
      });

      it('retires both at once and lists nothing', async () => {
        const now = await risks();
        assert.deepEqual([now[LOW], now[TWICE]], ['retired', 'retired']);
        assert.deepEqual(await listing(), []);
      });
    });
  });
}
