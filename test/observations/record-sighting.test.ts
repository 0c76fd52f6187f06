// recordSighting and submitForAnalysis on a stored fixture (docs/observations.md): a pasted value or a
// threat sighted and what it observes, the reporter kept, each refusal naming its field with nothing
// written, and a submission of a known, an unknown and a non-indicator value. SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { importDataset } from '../../src/import/import-file.js';
import { ObservationRefused } from '../../src/observations/observation-refused.js';
import { COMMAND_LINE_REPORTER, recordSighting } from '../../src/observations/record-sighting.js';
import { submitForAnalysis } from '../../src/observations/submit-for-analysis.js';
import { valueObservations } from '../../src/observations/value-observations.js';
import { buildFixture } from '../helpers/fixture.js';
import { assertSameStore, openPullWorld, snapshotStore, type PullWorld } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';

const ANALYST = { keyId: 'k_analyst', label: 'night shift' };

for (const backend of storeBackends()) {
  describe(`recordSighting and submitForAnalysis (${backend.name})`, () => {
    let world: PullWorld;
    before(async () => {
      world = await openPullWorld(backend);
      await importDataset(world.store, buildFixture(), world.clock);
    });
    after(async () => {
      await world.close();
      await backend.cleanup();
    });

    const refusedWithNothingWritten = async (what: () => Promise<unknown>, status: number, field: string, message: RegExp) => {
      const before = await snapshotStore(world.store);
      await assert.rejects(what, (error: unknown) => error instanceof ObservationRefused && error.status === status && error.field === field && message.test(error.message));
      assertSameStore(await snapshotStore(world.store), before, `refused (${field})`);
    };

    describe('a value as pasted', () => {
      it('is the stored indicator it names: the sighting stored with its reporter, count, note and time', async () => {
        world.clock.advance(60_000);
        const sighting = await recordSighting(world.store, { value: 'HOST3[.]example[.]net', count: 4, note: 'case 42', at: '2026-03-01T20:00:00Z' }, ANALYST, world.clock);
        assert.deepEqual({ ...sighting, id: 0 }, {
          id: 0, iid: 3, tid: null, reported_by: 'k_analyst', reported_by_label: 'night shift', reported_at: world.clock.stamp(), seen_at: '2026-03-01 20:00:00', count: 4, note: 'case 42',
        });
      });

      it('observes the indicator and the threats linked to it: their stamp_seen become the time it was seen', async () => {
        const body = await world.api('indicator.php', { iid: 3 });
        assert.deepEqual([body.stamp_seen, body.sightings, body.stamp_sighted, body.submissions], ['2026-03-01 20:00:00', 4, '2026-03-01 20:00:00', 0]);
        for (const tid of [1, 2]) assert.equal((await world.api('threat.php', { tid })).stamp_seen, '2026-03-01 20:00:00');
      });

      it('from the command line › reported by no key, labelled command line; seen now when no time is given', async () => {
        world.clock.advance(60_000);
        const sighting = await recordSighting(world.store, { value: '198.51.100.1:8080' }, COMMAND_LINE_REPORTER, world.clock);
        assert.deepEqual([sighting.iid, sighting.reported_by, sighting.reported_by_label, sighting.seen_at, sighting.count, sighting.note], [1, null, 'command line', world.clock.stamp(), 1, null]);
      });

      it('is listed newest first among the value\u2019s latest observations', async () => {
        world.clock.advance(60_000);
        await recordSighting(world.store, { value: 'host3.example.net', note: 'again' }, ANALYST, world.clock);
        const { sightings } = await valueObservations(world.store, 3);
        assert.deepEqual(sightings.map((s) => s.note), ['again', 'case 42']);
      });
    });

    describe('a threat by tid', () => {
      it('is sighted directly: its stamp_seen becomes the time, no indicator\u2019s changes', async () => {
        world.clock.advance(60_000);
        const indicatorBefore = await world.api('indicator.php', { iid: 24 });
        const sighting = await recordSighting(world.store, { tid: 2, count: 2 }, ANALYST, world.clock);
        assert.deepEqual([sighting.iid, sighting.tid, sighting.count], [null, 2, 2]);
        assert.equal((await world.api('threat.php', { tid: 2 })).stamp_seen, world.clock.stamp());
        assert.deepEqual(await world.api('indicator.php', { iid: 24 }), indicatorBefore);
      });

      it('a retired threat › recorded, and it stays retired', async () => {
        await recordSighting(world.store, { tid: 3 }, ANALYST, world.clock);
        assert.equal((await world.api('threat.php', { tid: 3 })).retired, true);
      });
    });

    describe('refusals, none of which writes anything', () => {
      it('a value no indicator holds › 404 naming value', () =>
        refusedWithNothingWritten(() => recordSighting(world.store, { value: 'never-seen.example' }, ANALYST, world.clock), 404, 'value', /^Field "value" names no stored indicator: "never-seen\.example"\.$/));
      it('text that is no indicator › 400 naming value', () =>
        refusedWithNothingWritten(() => recordSighting(world.store, { value: 'no such thing' }, ANALYST, world.clock), 400, 'value', /^Field "value" must be an indicator: "no such thing" is none/));
      it('a tid no threat has › 404 naming tid', () => refusedWithNothingWritten(() => recordSighting(world.store, { tid: 999 }, ANALYST, world.clock), 404, 'tid', /^Field "tid" names no stored threat: 999\.$/));
      it('a bad count on a stored value › 400 naming count', () =>
        refusedWithNothingWritten(() => recordSighting(world.store, { value: 'host3.example.net', count: 0 }, ANALYST, world.clock), 400, 'count', /^Field "count" must be a whole number/));
      it('a time in the future › 400 naming at', () => refusedWithNothingWritten(() => recordSighting(world.store, { tid: 1, at: '2027-01-01' }, ANALYST, world.clock), 400, 'at', /^Field "at" is in the future/));
    });

    describe('submitForAnalysis', () => {
      it('a stored value, pasted › recorded against the key with the indicator it names; counted once per key', async () => {
        world.clock.advance(60_000);
        const first = await submitForAnalysis(world.store, { value: ' host6[.]example[.]net ', keyId: 'k_one' }, world.clock);
        assert.deepEqual({ ...first, qid: 0 }, { qid: 0, key_id: 'k_one', value: 'host6.example.net', type: 'domain', iid: 6, submitted_at: world.clock.stamp() });
        await submitForAnalysis(world.store, { value: 'host6.example.net', keyId: 'k_one' }, world.clock);
        await submitForAnalysis(world.store, { value: 'host6.example.net', keyId: 'k_two' }, world.clock);
        const body = await world.api('indicator.php', { iid: 6 });
        assert.deepEqual([body.submissions, body.stamp_seen], [2, world.clock.stamp()]);
        const { submissions } = await valueObservations(world.store, 6);
        assert.deepEqual(submissions.map((s) => s.key_id), ['k_two', 'k_one', 'k_one']);
      });

      it('an unknown value › recorded with no indicator, and none is made', async () => {
        const submission = await submitForAnalysis(world.store, { value: 'Unknown-Submitted.example.', keyId: 'k_one' }, world.clock);
        assert.deepEqual([submission.value, submission.type, submission.iid], ['unknown-submitted.example', 'domain', null]);
        assert.equal(await world.store.findIndicatorByValue('unknown-submitted.example', ['domain', 'hostname']), undefined);
        await world.api('indicator.php', { indicator: 'unknown-submitted.example' }, 404);
      });

      it('text that is no indicator › recorded as given, of no type', async () => {
        const submission = await submitForAnalysis(world.store, { value: '  just some words ', keyId: 'k_one' }, world.clock);
        assert.deepEqual([submission.value, submission.type, submission.iid], ['just some words', null, null]);
      });

      it('an empty value or one with control characters › 400 naming value, nothing written', async () => {
        await refusedWithNothingWritten(() => submitForAnalysis(world.store, { value: '   ', keyId: 'k_one' }, world.clock), 400, 'value', /is empty/);
        await refusedWithNothingWritten(() => submitForAnalysis(world.store, { value: 'a\u0007b', keyId: 'k_one' }, world.clock), 400, 'value', /control characters/);
      });
    });
  });
}
