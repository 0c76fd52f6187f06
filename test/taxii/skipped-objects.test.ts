// GET .../objects/ when a stored object no longer matches its records: left out, logged and counted, never a 500.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createTestContext, GENEROUS_PLANS, type TestContext } from '../helpers/test-app.js';
import { collectionPath, INDICATORS_COLLECTION, taxiiGet, walk } from './taxii-request.js';
import { dbOf } from '../helpers/store-db.js';

const OBJECTS = `${collectionPath(INDICATORS_COLLECTION)}objects/`;

describe('GET /taxii2/api/collections/{id}/objects/ › with an object whose records were changed behind the import', () => {
  let ctx: TestContext;
  let broken: string;
  let everyId: string[];
  before(async () => {
    ctx = await createTestContext({ overrides: GENEROUS_PLANS });
    everyId = (await walk(ctx.app, ctx.keys.pro!, `${OBJECTS}?limit=1000`)).flatMap((p) => (p.body.objects ?? []).map((o) => o.id as string));
    const { rows } = await sql<{ id: string; tid: number; iid: number }>`
      select id, tid, iid from stix_objects where type = 'relationship' order by date_added limit 1`.execute(dbOf(ctx.store));
    broken = rows[0]!.id;
    // Only a fault of the store can do this: a link deleted without an import.
    await sql`delete from threat_links where tid = ${rows[0]!.tid} and iid = ${rows[0]!.iid}`.execute(dbOf(ctx.store));
  });
  after(() => ctx.close());

  it('answers every page with 200 and every other object, in order, walking with small pages', async () => {
    const pages = await walk(ctx.app, ctx.keys.pro!, `${OBJECTS}?limit=3`);
    const ids = pages.flatMap((p) => (p.body.objects ?? []).map((o) => o.id as string));
    assert.deepEqual(ids, everyId.filter((id) => id !== broken));
  });

  it('logs a warning naming the object and the count, never the request as failed', () => {
    const warnings = ctx.logLines.filter((line) => line.includes('STIX object left out of a page'));
    assert.ok(warnings.length > 0, 'no warning logged');
    assert.ok(warnings.every((line) => line.includes(broken)));
    assert.match(warnings.at(-1)!, /"skippedObjects":[1-9]/);
    assert.ok(!ctx.logLines.some((line) => /"status":5\d\d/.test(line)), 'a request failed with 5xx');
  });

  it('still lists the object in the manifest, which needs no body', async () => {
    const res = await taxiiGet(ctx.app, `${collectionPath(INDICATORS_COLLECTION)}manifest/?match[id]=${broken}`, ctx.keys.pro!).expect(200);
    assert.equal(res.body.objects[0].id, broken);
  });
});
