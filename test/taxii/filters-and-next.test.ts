// TAXII filters over HTTP (added_after, match[...]) and `next` tokens that keep them (TAXII 2.1 section 3.4).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestContext, GENEROUS_PLANS, type TestContext } from '../helpers/test-app.js';
import { assertTaxiiError, collectionPath, INDICATORS_COLLECTION, TEST_COLLECTION, taxiiGet, walk } from './taxii-request.js';

interface Entry {
  id: string;
  date_added: string;
  version: string;
}

const C = collectionPath(INDICATORS_COLLECTION);
const ids = (body: { objects?: unknown[] }) => (body.objects ?? []).map((o) => (o as { id: string }).id);

describe('TAXII filters and next tokens', () => {
  let ctx: TestContext;
  let manifest: Entry[];
  let byType: (type: string) => Entry[];
  before(async () => {
    ctx = await createTestContext({ overrides: GENEROUS_PLANS });
    manifest = (await taxiiGet(ctx.app, `${C}manifest/?limit=1000`, ctx.keys.pro!).expect(200)).body.objects;
    byType = (type) => manifest.filter((e) => e.id.startsWith(`${type}--`));
  });
  after(() => ctx.close());

  const get = (query: string, path = `${C}manifest/`) => taxiiGet(ctx.app, `${path}?${query}`, ctx.keys.pro!);

  describe('GET .../manifest/ › with added_after', () => {
    // The fixture's objects are dated 2026-01-15T10:00:00.000000Z, .000001Z, ... (one import, µs steps).
    const cases: [string, number][] = [
      ['2026-01-15T10:00:00Z', 0],
      ['2026-01-15T10:00:00.0Z', 0],
      ['2026-01-15T10:00:00.00001Z', 10],
      ['2026-01-15T10:00:00.000010Z', 10],
      ['2026-01-15T10:00:00.000010z', 10],
      ['2026-01-15t10:00:00.000010Z', 10],
      ['2026-01-15T11:00:00.000010+01:00', 10],
      ['2026-01-15T09:30:00.000010-00:30', 10],
      ['2026-01-15 10:00:00', 0],
      ['2026-01-15T09:59:59.999999Z', -1],
      ['0001-01-01T00:00:00Z', -1],
    ];
    for (const [value, afterIndex] of cases) {
      it(`added_after=${value} answers exactly the objects dated after it`, async () => {
        const res = await get(`added_after=${encodeURIComponent(value)}&limit=1000`).expect(200);
        assert.deepEqual(ids(res.body), manifest.slice(afterIndex + 1).map((e) => e.id));
      });
    }

    it('is exclusive: the object dated exactly at added_after is left out', async () => {
      const pivot = manifest[20]!;
      const res = await get(`added_after=${pivot.date_added}&limit=1000`).expect(200);
      assert.equal(ids(res.body)[0], manifest[21]!.id);
    });

    for (const bad of ['2026-01-15', '2026-01-15T10:00:00', '2026-01-15T10:00:00.1234567Z', '2026-13-01T00:00:00Z', '2026-02-30T00:00:00Z', '2026-01-15T24:00:00Z', '2026-01-15T10:00:00+25:00', '1768471200', 'yesterday', '']) {
      it(`added_after=${JSON.stringify(bad)} answers 400 naming added_after`, async () => {
        const res = await get(`added_after=${encodeURIComponent(bad)}`);
        assertTaxiiError(res, 400);
        assert.match(res.body.description, /added_after/);
      });
    }
  });

  describe('GET .../manifest/ › with match[...]', () => {
    it('match[type]=indicator keeps only indicators', async () => {
      const res = await get('match[type]=indicator&limit=1000').expect(200);
      assert.deepEqual(ids(res.body), byType('indicator').map((e) => e.id));
    });

    it('match[type]=malware,identity keeps both types, in date_added order', async () => {
      const res = await get('match[type]=malware,identity&limit=1000').expect(200);
      assert.deepEqual(ids(res.body), manifest.filter((e) => /^(malware|identity)--/.test(e.id)).map((e) => e.id));
    });

    it('match[id]=A,B answers those two objects', async () => {
      const [a, b] = [manifest[40]!, manifest[3]!];
      const res = await get(`match[id]=${a.id},${b.id}`).expect(200);
      assert.deepEqual(ids(res.body), [b.id, a.id]);
    });

    it('match[id] and match[type] combine with AND', async () => {
      const indicator = byType('indicator')[0]!;
      const res = await get(`match[id]=${indicator.id},${byType('malware')[0]!.id}&match[type]=indicator`).expect(200);
      assert.deepEqual(ids(res.body), [indicator.id]);
    });

    for (const version of ['first', 'last', 'all', 'last,first']) {
      it(`match[version]=${version} answers every object (only one version of each is kept)`, async () => {
        const res = await get(`match[version]=${version}&limit=1000`).expect(200);
        assert.equal(ids(res.body).length, manifest.length);
      });
    }

    it('match[version]=<modified> answers the objects of that version, whatever its precision', async () => {
      const version = manifest[0]!.version;
      const expected = manifest.filter((e) => e.version === version).map((e) => e.id);
      const micro = version.replace(/Z$/, '000Z');
      for (const value of [version, micro]) {
        const res = await get(`match[version]=${value}&limit=1000`).expect(200);
        assert.deepEqual(ids(res.body), expected);
      }
      const none = await get('match[version]=2001-01-01T00:00:00.000Z').expect(200);
      assert.equal(none.text, '{"more":false}');
    });

    for (const [spec, count] of [
      ['2.1', 'all'],
      ['2.0,2.1', 'all'],
      ['2.0', 'none'],
    ] as const) {
      it(`match[spec_version]=${spec} answers ${count}`, async () => {
        const res = await get(`match[spec_version]=${spec}&limit=1000`).expect(200);
        assert.equal(ids(res.body).length, count === 'all' ? manifest.length : 0);
      });
    }

    for (const [query, name] of [
      ['match[type]=indicator&match[type]=malware', 'match[type]'],
      ['match[id]=a&match[id]=b', 'match[id]'],
      ['limit=1&limit=2', 'limit'],
      ['limit=abc', 'limit'],
      ['added_after=2026-01-15T10:00:00Z&added_after=2026-01-15T10:00:00Z', 'added_after'],
      ['match[type]=Not_A_Type', 'match[type]'],
      ['match[id]=indicator', 'match[id]'],
      ['match[version]=yesterday', 'match[version]'],
      ['match[spec_version]=two', 'match[spec_version]'],
      ['match[colour]=red', 'match[colour]'],
    ]) {
      it(`${query} answers 400 naming ${name}`, async () => {
        const res = await get(query!);
        assertTaxiiError(res, 400);
        assert.ok(res.body.description.includes(name), res.body.description);
      });
    }
  });

  describe('GET .../objects/{object_id}/, .../versions/ and .../manifest/', () => {
    for (const type of ['indicator', 'malware', 'relationship', 'identity']) {
      it(`agree with GET .../objects/ about a ${type}`, async () => {
        const entry = byType(type)[0]!;
        const listed = (await get('limit=1000', `${C}objects/`).expect(200)).body.objects.find((o: { id: string }) => o.id === entry.id);
        const one = await taxiiGet(ctx.app, `${C}objects/${entry.id}/`, ctx.keys.pro!).expect(200);
        assert.deepEqual(one.body, { more: false, objects: [listed] });
        assert.equal(listed.modified, entry.version);
        assert.equal(one.headers['x-taxii-date-added-first'], entry.date_added);
        assert.equal(one.headers['x-taxii-date-added-last'], entry.date_added);
        const versions = await taxiiGet(ctx.app, `${C}objects/${entry.id}/versions/`, ctx.keys.pro!).expect(200);
        assert.deepEqual(versions.body, { more: false, versions: [entry.version] });
        const manifestOne = await get(`match[id]=${entry.id}`).expect(200);
        assert.deepEqual(manifestOne.body.objects, [entry]);
      });
    }

    it('the object endpoint takes match[version] and match[spec_version], and refuses match[type]', async () => {
      const entry = byType('indicator')[0]!;
      const path = `${C}objects/${entry.id}/`;
      for (const query of ['match[version]=first', 'match[version]=last', 'match[version]=all', `match[version]=${entry.version}`, 'match[spec_version]=2.1']) {
        assert.deepEqual(ids((await get(query, path).expect(200)).body), [entry.id], query);
      }
      assert.equal((await get('match[spec_version]=2.0', path).expect(200)).text, '{"more":false}');
      assert.equal((await get('match[spec_version]=2.0', `${path}versions/`).expect(200)).text, '{"more":false}');
      assertTaxiiError(await get('match[type]=indicator', path), 400);
      assertTaxiiError(await get('match[version]=last', `${path}versions/`), 400);
    });

    it('an object outside the collection is 404, even though it exists in another', async () => {
      const inTest = new Set((await taxiiGet(ctx.app, `${collectionPath(TEST_COLLECTION)}manifest/?limit=1000`, ctx.keys.pro!).expect(200)).body.objects.map((e: Entry) => e.id));
      const missing = manifest.filter((e) => !inTest.has(e.id));
      assert.ok(missing.length > 0, 'the fixture has an object outside the test collection');
      assertTaxiiError(await taxiiGet(ctx.app, `${collectionPath(TEST_COLLECTION)}objects/${missing[0]!.id}/`, ctx.keys.pro!), 404);
    });
  });

  describe('following next', () => {
    const after = '2026-01-15T10:00:00.000007Z';
    const filtered = () => manifest.filter((e) => e.id.startsWith('indicator--') && e.date_added > after).map((e) => e.id);

    for (const endpoint of ['objects', 'manifest']) {
      it(`GET .../${endpoint}/ keeps added_after and match[type] without their being sent again`, async () => {
        const pages = await walk(ctx.app, ctx.keys.pro!, `${C}${endpoint}/?limit=4&added_after=${after}&match[type]=indicator`);
        assert.ok(pages.length > 2, `only ${pages.length} pages`);
        assert.deepEqual(pages.flatMap((p) => ids(p.body)), filtered());
      });
    }

    it('gives the same walk to a client that sends its filters again with next', async () => {
      const first = `added_after=${after}&match[type]=indicator&limit=4`;
      let res = await get(first, `${C}objects/`).expect(200);
      const seen = ids(res.body);
      while (res.body.more) {
        res = await get(`${first}&next=${encodeURIComponent(res.body.next)}`, `${C}objects/`).expect(200);
        seen.push(...ids(res.body));
      }
      assert.deepEqual(seen, filtered());
    });

    describe('with a token that was not issued for this request', () => {
      let token: string;
      before(async () => {
        token = (await get('limit=2&match[type]=indicator').expect(200)).body.next;
      });

      const tampered: [string, (t: string) => string][] = [
        ['a changed payload', (t) => `${t[0] === 'A' ? 'B' : 'A'}${t.slice(1)}`],
        ['a changed signature', (t) => `${t.slice(0, -2)}${t.endsWith('AA') ? 'BB' : 'AA'}`],
        ['a truncated signature', (t) => t.slice(0, -4)],
        ['no signature', (t) => t.split('.')[0]!],
        ['a payload re-encoded without the type filter', (t) => `${Buffer.from(Buffer.from(t.split('.')[0]!, 'base64url').toString().replace('["indicator"]', 'null')).toString('base64url')}.${t.split('.')[1]}`],
        ['garbage', () => 'not-a-token'],
        ['an empty value', () => ''],
      ];
      for (const [what, change] of tampered) {
        it(`answers 400 naming next for ${what}`, async () => {
          const res = await get(`next=${encodeURIComponent(change(token))}`);
          assertTaxiiError(res, 400);
          assert.match(res.body.description, /next/);
        });
      }

      it('answers 400 when a manifest token is sent to the objects endpoint', async () => {
        assertTaxiiError(await get(`next=${encodeURIComponent(token)}`, `${C}objects/`), 400);
      });

      it('answers 400 when a token of another collection is sent', async () => {
        assertTaxiiError(await get(`next=${encodeURIComponent(token)}`, `${collectionPath(TEST_COLLECTION)}manifest/`), 400);
      });

      it('answers 400 when next is given twice', async () => {
        assertTaxiiError(await get(`next=${encodeURIComponent(token)}&next=${encodeURIComponent(token)}`), 400);
      });
    });
  });
});
