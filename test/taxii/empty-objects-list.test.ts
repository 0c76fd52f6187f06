// taxii.emptyObjectsList over HTTP: an empty objects poll carries "objects": [] only when configured.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestContext, GENEROUS_PLANS, type TestContext } from '../helpers/test-app.js';
import { collectionPath, INDICATORS_COLLECTION, taxiiGet } from './taxii-request.js';

const C = collectionPath(INDICATORS_COLLECTION);
const LATER = encodeURIComponent('2099-01-01T00:00:00Z');

for (const emptyObjectsList of [false, true]) {
  describe(`an empty TAXII poll with taxii.emptyObjectsList ${emptyObjectsList}`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestContext({ overrides: { ...GENEROUS_PLANS, taxii: { emptyObjectsList } } });
    });
    after(() => ctx.close());

    it(`objects/ answers ${emptyObjectsList ? '{"more":false,"objects":[]}' : '{"more":false}'} without date headers`, async () => {
      const res = await taxiiGet(ctx.app, `${C}objects/?added_after=${LATER}`, ctx.keys.pro!).expect(200);
      assert.equal(res.text, emptyObjectsList ? '{"more":false,"objects":[]}' : '{"more":false}');
      assert.equal(res.headers['x-taxii-date-added-last'], undefined);
    });

    it('manifest/ leaves objects out either way', async () => {
      const res = await taxiiGet(ctx.app, `${C}manifest/?added_after=${LATER}`, ctx.keys.pro!).expect(200);
      assert.deepEqual(res.body, { more: false });
    });

    it('a page with objects is the same either way', async () => {
      const res = await taxiiGet(ctx.app, `${C}objects/?limit=2`, ctx.keys.pro!).expect(200);
      assert.equal(res.body.objects.length, 2);
    });
  });
}
