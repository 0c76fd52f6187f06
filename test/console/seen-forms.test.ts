// The console's "Seen" forms (docs/console-and-operations.md, "Sightings") on each store, signed in through the login form: on a threat's
// page and on a value's, a sighting recorded as the session's admin key (its id and label), the page saying what was recorded and
// listing it; every refused field shown beside the form with the form kept, nothing recorded; forms refused without their CSRF token.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Express } from 'express';
import { createApp } from '../../src/app.js';
import { createAdminKey } from '../../src/cli/keys-command.js';
import { loadConfig } from '../../src/config.js';
import type { Threat } from '../../src/domain.js';
import { importDataset } from '../../src/import/import-file.js';
import { createLogger } from '../../src/logger.js';
import type { Store } from '../../src/store/contract/store.js';
import { extraIndicator } from '../helpers/fixture.js';
import { manualClock, type ManualClock } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';
import { GENEROUS_PLANS, TEST_NEXT_SECRET } from '../helpers/test-app.js';
import { byId, signIn, type ConsoleClient } from './console-world.js';

const STAMP = '2025-06-01 00:00:00';

const threat: Threat = {
  tid: 1, threat: 'Seen <b>Kit</b>', category: 'malware', risk: 'high', othernames: [], description: null, notes: null, wikisummary: null, wikireference: null,
  retired: false, stamp_added: STAMP, stamp_updated: STAMP, stamp_seen: STAMP, stamp_retired: null, attributes: {}, ttps: [], news: [], comments: [], related: [],
};

/** The value of the form input with this id, as the page sent it (an empty one is written as a bare `value`). */
function inputValue(html: string, id: string): string {
  const match = new RegExp(`<input id="${id}"[^>]*? value(?:="([^"]*)")?[\\s/>]`).exec(html) ?? assert.fail(`no input #${id} with a value`);
  return match[1] ?? '';
}

for (const backend of storeBackends()) {
  describe(`console Seen forms (${backend.name})`, () => {
    const config = loadConfig({ overrides: { ...GENEROUS_PLANS, cache: { versionCheckMs: 0 } } });
    let store: Store;
    let clock: ManualClock;
    let app: Express;
    let client: ConsoleClient;
    let adminId: string;
    const sightingsOf = (target: { tid: number } | { iid: number }) => store.listSightings(target, 100);
    const post = async (path: string, fields: Record<string, string>, status: number, options: { csrf?: string | null } = {}) => {
      const res = await client.post(path, fields, options);
      assert.equal(res.status, status, res.text);
      return res;
    };

    before(async () => {
      ({ store } = await backend.create({ collections: config.collections }));
      clock = manualClock();
      const indicators = [extraIndicator(1, '198.51.100.1', 'ip'), extraIndicator(2, 'seen.example.org', 'domain')];
      await importDataset(store, { threats: [threat], feeds: [], indicators, links: indicators.map((i) => ({ iid: i.iid, tid: 1, stamp_linked: STAMP })) }, clock);
      const admin = await createAdminKey(store, clock, 'seen <i>tests</i>');
      adminId = admin.id;
      app = createApp(config, { store, clock, logger: createLogger('info', () => undefined), nextTokenSecret: TEST_NEXT_SECRET });
      client = await signIn(app, admin.key);
    });
    after(async () => {
      await store?.close();
      await backend.cleanup();
    });

    describe('on a threat page', () => {
      it('before any sighting › none reported, and the form: count 1, when and note empty, each labelled', async () => {
        const res = await client.get('/console/threats/1').expect(200);
        assert.equal(byId(res.text, 'threat-sightings-summary'), 'No one has reported seeing it.');
        assert.match(res.text, /<form id="threat-seen" class="seen" method="post" action="\/console\/threats\/1\/seen"/);
        assert.equal(inputValue(res.text, 'threat-seen-count'), '1');
        assert.equal(inputValue(res.text, 'threat-seen-at'), '');
        assert.equal(inputValue(res.text, 'threat-seen-note'), '');
        for (const [id, label] of [['count', 'Count'], ['at', 'When (optional)'], ['note', 'Note (optional)']] as const) assert.match(res.text, new RegExp(`<label for="threat-seen-${id}">${label.replace(/[()]/g, '\\$&')}</label>`));
      });

      it('Seen with a count, a time and a note › 303 to the page, which says what was recorded and lists it, reported as the session\u2019s key', async () => {
        clock.advance(60_000);
        const res = await post('/console/threats/1/seen', { count: '3', at: '2026-03-01T10:00:00Z', note: 'case <42>' }, 303);
        const [sighting] = await sightingsOf({ tid: 1 });
        assert.ok(sighting);
        assert.equal(res.headers.location, `/console/threats/1?seen=${sighting.id}`);
        assert.deepEqual(
          { count: sighting.count, seen_at: sighting.seen_at, note: sighting.note, by: sighting.reported_by, label: sighting.reported_by_label, reported: sighting.reported_at },
          { count: 3, seen_at: '2026-03-01 10:00:00', note: 'case <42>', by: adminId, label: 'seen <i>tests</i>', reported: clock.stamp() },
        );
        const page = await client.get(res.headers.location!).expect(200);
        assert.equal(byId(page.text, 'threat-message'), `Done: Recorded a sighting: seen 3 times at 2026-03-01 10:00:00 UTC, reported by seen &lt;i>tests&lt;/i> (key ${adminId}).`);
        assert.equal(byId(page.text, 'threat-sightings-summary'), 'Seen 3 times in all reported sightings; the latest seen 2026-03-01 10:00:00 UTC.');
        assert.match(byId(page.text, 'threat-sightings-table'), new RegExp(`2026-03-01 10:00:00 UTC3seen &lt;i>tests&lt;/i> \\(key ${adminId}\\)case &lt;42>${clock.stamp()} UTC`));
        assert.equal(inputValue(page.text, 'threat-seen-count'), '1', 'the form is empty again');
      });

      it('Seen with the fields left as they are › once, now', async () => {
        clock.advance(60_000);
        const res = await post('/console/threats/1/seen', { count: '1', at: '', note: '' }, 303);
        const page = await client.get(res.headers.location!).expect(200);
        assert.equal(byId(page.text, 'threat-message'), `Done: Recorded a sighting: seen once at ${clock.stamp()} UTC, reported by seen &lt;i>tests&lt;/i> (key ${adminId}).`);
        assert.equal(byId(page.text, 'threat-sightings-summary'), `Seen 4 times in all reported sightings; the latest seen ${clock.stamp()} UTC.`);
        assert.equal((await store.observationCounts({ tid: 1 }))?.sightings, 4);
      });

      for (const [what, fields, field, message] of [
        ['a count of 0', { count: '0' }, 'count', 'Count must be a whole number from 1 to 1000000000. Nothing was recorded.'],
        ['a count that is no number', { count: 'many' }, 'count', 'Count must be a whole number from 1 to 1000000000. Nothing was recorded.'],
        ['a count with a fraction', { count: '1.5' }, 'count', 'Count must be a whole number from 1 to 1000000000. Nothing was recorded.'],
        ['a time that is none', { at: 'yesterday' }, 'at', 'When must be a timestamp'],
        ['a time in the future', { at: '2099-01-01' }, 'at', 'When is in the future'],
        ['a note with a line break', { note: 'two\nlines' }, 'note', 'Note must not hold control characters'],
        ['a note too long', { note: 'x'.repeat(1001) }, 'note', 'Note is at most 1000 characters. Nothing was recorded.'],
      ] as const) {
        it(`${what} › 400, the problem beside its field, the form as sent; nothing recorded`, async () => {
          const before = await sightingsOf({ tid: 1 });
          const sent: Record<string, string> = Object.assign({ count: '2', at: '', note: 'kept' }, fields);
          const res = await post('/console/threats/1/seen', sent, 400);
          assert.match(byId(res.text, `threat-seen-${field}-error`), new RegExp(`^Error: ${message.replace(/[.()]/g, '\\$&')}`));
          assert.match(res.text, new RegExp(`<input id="threat-seen-${field}"[^>]* aria-invalid="true" aria-describedby="threat-seen-${field}-error threat-seen-${field}-help"`));
          if (field !== 'note') assert.equal(inputValue(res.text, 'threat-seen-note'), 'kept');
          assert.deepEqual(await sightingsOf({ tid: 1 }), before);
        });
      }

      it('without the CSRF token › 403, nothing recorded; an unknown threat › 404; a bad id › 400', async () => {
        const before = await sightingsOf({ tid: 1 });
        await post('/console/threats/1/seen', { count: '1' }, 403, { csrf: null });
        const unknown = await post('/console/threats/999/seen', { count: '1' }, 404);
        assert.ok(unknown.text.includes('There is no threat 999.'));
        await post('/console/threats/x/seen', { count: '1' }, 400);
        assert.deepEqual(await sightingsOf({ tid: 1 }), before);
        await client.get('/console/threats/1/seen').expect(405);
      });

      it('the message is said only for a sighting among the latest; a bad id › 400', async () => {
        const page = await client.get('/console/threats/1?seen=999999').expect(200);
        assert.equal(page.text.includes('id="threat-message"'), false);
        await client.get('/console/threats/1?seen=abc').expect(400);
      });
    });

    describe('on a value page', () => {
      it('a stored value › none reported, the form carrying the value, no submission', async () => {
        const res = await client.get('/console/value').query({ value: 'seen.example.org' }).expect(200);
        assert.equal(byId(res.text, 'value-sightings-summary'), 'No one has reported seeing it.');
        assert.match(res.text, /<form id="value-seen" class="seen" method="post" action="\/console\/value\/seen"/);
        assert.match(res.text, /<input type="hidden" name="value" value="seen.example.org"\/>/);
        assert.match(byId(res.text, 'value-submissions'), /No key has submitted it for analysis/);
      });

      it('Seen of a value pasted defanged › 303 to its page, which says what was recorded; its threat is not sighted by it', async () => {
        clock.advance(60_000);
        const threatBefore = (await store.observationCounts({ tid: 1 }))?.sightings;
        const res = await post('/console/value/seen', { value: 'seen[.]example[.]org', count: '2', at: '', note: '' }, 303);
        const [sighting] = await sightingsOf({ iid: 2 });
        assert.ok(sighting);
        assert.equal(res.headers.location, `/console/value?${new URLSearchParams({ value: 'seen[.]example[.]org', seen: String(sighting.id) })}`);
        assert.equal(sighting.reported_by, adminId);
        const page = await client.get(res.headers.location!).expect(200);
        assert.equal(byId(page.text, 'value-message'), `Done: Recorded a sighting: seen 2 times at ${clock.stamp()} UTC, reported by seen &lt;i>tests&lt;/i> (key ${adminId}).`);
        assert.equal(byId(page.text, 'value-sightings-summary'), `Seen 2 times in all reported sightings; the latest seen ${clock.stamp()} UTC.`);
        assert.equal((await store.observationCounts({ tid: 1 }))?.sightings, threatBefore, 'a threat counts its own sightings only');
      });

      it('a refused count › 400, beside the field on the value page; nothing recorded', async () => {
        const before = await sightingsOf({ iid: 2 });
        const res = await post('/console/value/seen', { value: 'seen.example.org', count: '-1', at: '', note: '' }, 400);
        assert.match(byId(res.text, 'value-seen-count-error'), /Count must be a whole number/);
        assert.equal(inputValue(res.text, 'value-seen-count'), '-1');
        assert.deepEqual(await sightingsOf({ iid: 2 }), before);
      });

      it('a value no indicator holds › 404 saying so; no value › 400; nothing recorded', async () => {
        const res = await post('/console/value/seen', { value: '203.0.113.99', count: '1' }, 404);
        assert.equal(byId(res.text, 'value-message'), 'Error: The value names no stored indicator: &quot;203.0.113.99&quot;. Nothing was recorded.');
        const none = await post('/console/value/seen', { count: '1' }, 400);
        assert.ok(none.text.includes('The form named no value. Nothing was recorded.'));
        assert.deepEqual(await sightingsOf({ iid: 1 }), []);
      });
    });
  });
}
