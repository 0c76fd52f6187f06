// A TAXII walk started on one instance continues on another: `next` is signed with a secret kept in the shared store.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { GENEROUS_PLANS } from '../helpers/test-app.js';
import { openInstance, seedDatabase, type Instance } from '../helpers/gateway-instances.js';
import { storeBackends } from '../helpers/store-backends.js';
import { INDICATORS_COLLECTION, taxiiGet, walk } from '../taxii/taxii-request.js';

const config = loadConfig({ overrides: GENEROUS_PLANS });
const OBJECTS = `/taxii2/api/collections/${INDICATORS_COLLECTION}/objects/`;

interface Step {
  ids: string[];
  more: boolean;
}

/** Follows `next`, sending each request to the next instance in turn; `next` alone carries the filters. */
async function walkAcross(instances: Instance[], key: string, first: string, limit: number): Promise<Step[]> {
  const steps: Step[] = [];
  let url = first;
  for (let i = 0; i < 1000; i++) {
    const res = await taxiiGet(instances[i % instances.length]!.app, url, key);
    assert.equal(res.status, 200, res.text);
    const body = JSON.parse(res.text) as { more: boolean; next?: string; objects?: { id: string }[] };
    steps.push({ ids: (body.objects ?? []).map((o) => o.id), more: body.more });
    if (!body.more) return steps;
    url = `${OBJECTS}?next=${encodeURIComponent(body.next!)}&limit=${limit}`;
  }
  throw new Error('the walk did not end');
}

for (const backend of storeBackends()) {
  describe(`a TAXII walk over two instances (${backend.name})`, () => {
    let keys: Record<string, string>;
    const instances: Instance[] = [];
    before(async () => {
      const seeded = await seedDatabase(backend, config);
      keys = seeded.keys;
      for (let i = 0; i < 2; i++) instances.push(await openInstance(seeded.location, config));
    });
    after(async () => {
      for (const instance of instances) await instance.close();
      await backend.cleanup();
    });

    for (const [title, query] of [
      ['without filters', 'limit=7'],
      ['with added_after and match[type] given on the first request only', 'limit=3&match[type]=indicator,relationship&added_after=2000-01-01T00:00:00Z'],
    ] as const) {
      it(`${title} › gives, page by page, what one instance gives`, async () => {
        const limit = Number(new URLSearchParams(query).get('limit'));
        const alone = await walk(instances[0]!.app, keys.pro!, `${OBJECTS}?${query}`);
        const across = await walkAcross(instances, keys.pro!, `${OBJECTS}?${query}`, limit);
        assert.ok(across.length >= 3, `a walk of several pages (got ${across.length})`);
        assert.deepEqual(
          across,
          alone.map((page) => ({ ids: (page.body.objects ?? []).map((o) => o.id as string), more: page.body.more })),
        );
      });
    }

    it('signs with one secret, created once in the store, that both instances read', async () => {
      const [a, b] = instances as [Instance, Instance];
      assert.equal(await a.store.nextTokenSecret(), await b.store.nextTokenSecret());
    });
  });
}
