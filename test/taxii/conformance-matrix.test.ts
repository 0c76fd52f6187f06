// Every TAXII 2.1 endpoint against 200 / 401 / 403 / 404 / 406 / 400: status, exact Content-Type, required properties.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { createTestContext, GENEROUS_PLANS, type TestContext } from '../helpers/test-app.js';
import { assertTaxiiError, basicAuth, collectionPath, INDICATORS_COLLECTION, STIX_TYPE, TAXII_TYPE, taxiiGet } from './taxii-request.js';

const UNKNOWN_COLLECTION = '00000000-0000-4000-8000-000000000000';
const UNKNOWN_OBJECT = 'indicator--00000000-0000-4000-8000-000000000000';

interface Endpoint {
  name: string;
  path: (ids: { collection: string; object: string }) => string;
  /** Properties the TAXII 2.1 resource requires. */
  required: string[];
  /** An id in the path that can be unknown (404 applies). */
  unknown?: { collection?: string; object?: string };
  /** A parameter the endpoint rejects (400 applies): every endpoint rejects pretty=2, listings also limit=0. */
  badQuery: string;
}

const C = collectionPath(INDICATORS_COLLECTION);
const ENDPOINTS: Endpoint[] = [
  { name: 'GET /taxii2/', path: () => '/taxii2/', required: ['title', 'api_roots'], badQuery: 'pretty=2' },
  { name: 'GET /taxii2/api/', path: () => '/taxii2/api/', required: ['title', 'versions', 'max_content_length'], badQuery: 'pretty=2' },
  { name: 'GET /taxii2/api/collections/', path: () => '/taxii2/api/collections/', required: ['collections'], badQuery: 'pretty=2' },
  {
    name: 'GET /taxii2/api/collections/{id}/',
    path: ({ collection }) => collectionPath(collection),
    required: ['id', 'title', 'can_read', 'can_write', 'media_types'],
    unknown: { collection: UNKNOWN_COLLECTION },
    badQuery: 'pretty=2',
  },
  {
    name: 'GET /taxii2/api/collections/{id}/manifest/',
    path: ({ collection }) => `${collectionPath(collection)}manifest/`,
    required: ['more', 'objects'],
    unknown: { collection: UNKNOWN_COLLECTION },
    badQuery: 'limit=0',
  },
  {
    name: 'GET /taxii2/api/collections/{id}/objects/',
    path: ({ collection }) => `${collectionPath(collection)}objects/`,
    required: ['more', 'objects'],
    unknown: { collection: UNKNOWN_COLLECTION },
    badQuery: 'limit=0',
  },
  {
    name: 'GET /taxii2/api/collections/{id}/objects/{object_id}/',
    path: ({ collection, object }) => `${collectionPath(collection)}objects/${object}/`,
    required: ['more', 'objects'],
    unknown: { collection: UNKNOWN_COLLECTION, object: UNKNOWN_OBJECT },
    badQuery: 'match[version]=yesterday',
  },
  {
    name: 'GET /taxii2/api/collections/{id}/objects/{object_id}/versions/',
    path: ({ collection, object }) => `${collectionPath(collection)}objects/${object}/versions/`,
    required: ['more', 'versions'],
    unknown: { collection: UNKNOWN_COLLECTION, object: UNKNOWN_OBJECT },
    badQuery: 'limit=-1',
  },
];

describe('TAXII 2.1 conformance matrix', () => {
  let ctx: TestContext;
  let objectId: string;
  before(async () => {
    ctx = await createTestContext({ overrides: GENEROUS_PLANS });
    const manifest = await taxiiGet(ctx.app, `${C}manifest/?match[type]=indicator&limit=1`, ctx.keys.pro!).expect(200);
    objectId = manifest.body.objects[0].id;
  });
  after(() => ctx.close());

  const pathOf = (endpoint: Endpoint, ids: Partial<{ collection: string; object: string }> = {}) =>
    endpoint.path({ collection: ids.collection ?? INDICATORS_COLLECTION, object: ids.object ?? objectId });

  for (const endpoint of ENDPOINTS) {
    describe(endpoint.name, () => {
      describe('with a Pro-plan key and the TAXII 2.1 Accept', () => {
        it(`answers 200 with the TAXII media type and ${endpoint.required.join(', ')}`, async () => {
          const res = await taxiiGet(ctx.app, pathOf(endpoint), ctx.keys.pro!);
          assert.equal(res.status, 200, res.text);
          assert.equal(res.headers['content-type'], TAXII_TYPE);
          const body = JSON.parse(res.text) as Record<string, unknown>;
          for (const property of endpoint.required) assert.ok(property in body, `missing ${property}`);
        });
      });

      describe('without credentials', () => {
        it('answers 401 with a Basic challenge and a TAXII error', async () => {
          const res = await request(ctx.app).get(pathOf(endpoint)).set('Accept', TAXII_TYPE);
          assertTaxiiError(res, 401);
          assert.equal(res.headers['www-authenticate'], 'Basic realm="threatgate"');
        });
      });

      describe('with a Team-plan key (no TAXII)', () => {
        it('answers 403 with a TAXII error', async () => {
          assertTaxiiError(await taxiiGet(ctx.app, pathOf(endpoint), ctx.keys.team!), 403);
        });
      });

      describe('with Accept: application/json', () => {
        it('answers 406 with a TAXII error', async () => {
          assertTaxiiError(await taxiiGet(ctx.app, pathOf(endpoint), ctx.keys.pro!, 'application/json'), 406);
        });
      });

      for (const [what, unknownId] of Object.entries(endpoint.unknown ?? {})) {
        describe(`with an unknown ${what} id`, () => {
          it('answers 404 with a TAXII error', async () => {
            assertTaxiiError(await taxiiGet(ctx.app, pathOf(endpoint, { [what]: unknownId }), ctx.keys.pro!), 404);
          });
        });
      }

      describe(`with ${endpoint.badQuery}`, () => {
        it('answers 400 with a TAXII error naming the parameter', async () => {
          const res = await taxiiGet(ctx.app, `${pathOf(endpoint)}?${endpoint.badQuery}`, ctx.keys.pro!);
          assertTaxiiError(res, 400);
          assert.match(res.body.description, new RegExp(endpoint.badQuery.split('=')[0]!.replace(/[[\]]/g, '\\$&')));
        });
      });

      describe('without the trailing slash', () => {
        it('answers the same body as with it', async () => {
          const withSlash = await taxiiGet(ctx.app, pathOf(endpoint), ctx.keys.pro!).expect(200);
          const without = await taxiiGet(ctx.app, pathOf(endpoint).replace(/\/$/, ''), ctx.keys.pro!).expect(200);
          assert.equal(without.headers['content-type'], TAXII_TYPE);
          assert.equal(without.text, withSlash.text);
        });
      });

      describe('with pretty=1', () => {
        it('indents the same JSON with two spaces', async () => {
          const plain = await taxiiGet(ctx.app, pathOf(endpoint), ctx.keys.pro!).expect(200);
          const pretty = await taxiiGet(ctx.app, `${pathOf(endpoint)}?pretty=1`, ctx.keys.pro!).expect(200);
          assert.equal(pretty.text, JSON.stringify(JSON.parse(plain.text), null, 2));
          assert.notEqual(pretty.text, plain.text);
        });
      });
    });
  }

  describe('the resources', () => {
    it('discovery lists the one API root by relative URL, without a query string', async () => {
      const res = await request(ctx.app).get(`/taxii2/?key=${ctx.keys.pro}&accept=${encodeURIComponent(TAXII_TYPE)}`).expect(200);
      assert.deepEqual(res.body.api_roots, ['/taxii2/api/']);
      assert.equal(res.body.default, '/taxii2/api/');
    });

    it('the API root announces TAXII 2.1 and a positive max_content_length', async () => {
      const res = await taxiiGet(ctx.app, '/taxii2/api/', ctx.keys.pro!).expect(200);
      assert.deepEqual(res.body.versions, [TAXII_TYPE]);
      assert.ok(Number.isInteger(res.body.max_content_length) && res.body.max_content_length > 0, `max_content_length: ${res.body.max_content_length}`);
    });

    it('collections are readable, not writable, and serve STIX 2.1', async () => {
      const res = await taxiiGet(ctx.app, '/taxii2/api/collections/', ctx.keys.pro!).expect(200);
      assert.deepEqual(
        res.body.collections.map((c: { id: string }) => c.id),
        ctx.config.collections.map((c) => c.id),
      );
      for (const collection of res.body.collections) {
        assert.equal(collection.can_read, true);
        assert.equal(collection.can_write, false);
        assert.deepEqual(collection.media_types, [STIX_TYPE]);
      }
    });

    it('manifest entries carry id, date_added, version and the STIX media type', async () => {
      const res = await taxiiGet(ctx.app, `${C}manifest/?limit=5`, ctx.keys.pro!).expect(200);
      for (const entry of res.body.objects) {
        assert.deepEqual(Object.keys(entry).sort(), ['date_added', 'id', 'media_type', 'version']);
        assert.equal(entry.media_type, STIX_TYPE);
        assert.match(entry.date_added, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
      }
    });

    it('objects are STIX 2.1 objects with type, id and spec_version', async () => {
      const res = await taxiiGet(ctx.app, `${C}objects/?limit=10`, ctx.keys.pro!).expect(200);
      for (const object of res.body.objects) {
        assert.equal(object.spec_version, '2.1');
        assert.ok(object.id.startsWith(`${object.type}--`), `${object.id} is not a ${object.type}`);
      }
    });
  });

  describe('writes and other methods', () => {
    it('POST .../objects/ answers 403: collections are read-only', async () => {
      const res = await request(ctx.app)
        .post(`${C}objects/`)
        .set('Authorization', basicAuth(ctx.keys.pro!))
        .set('Accept', TAXII_TYPE)
        .set('Content-Type', 'application/taxii+json;version=2.1')
        .send('{"objects":[]}');
      assertTaxiiError(res, 403);
    });

    it('DELETE .../objects/{object_id}/ answers 403', async () => {
      const res = await request(ctx.app).delete(`${C}objects/${objectId}/`).set('Authorization', basicAuth(ctx.keys.pro!)).set('Accept', TAXII_TYPE);
      assertTaxiiError(res, 403);
    });

    it('GET /taxii2/api/status/{id}/ answers 404: nothing is ever written', async () => {
      assertTaxiiError(await taxiiGet(ctx.app, '/taxii2/api/status/2d086da7-4bdc-4f91-900e-d77486753710/', ctx.keys.pro!), 404);
    });

    it('an unknown path under /taxii2/ answers 404 with a TAXII error', async () => {
      assertTaxiiError(await taxiiGet(ctx.app, '/taxii2/api/nothing-here/', ctx.keys.pro!), 404);
    });

    for (const [method, path, allow] of [
      ['put', '/taxii2/', 'GET, HEAD'],
      ['post', '/taxii2/api/collections/', 'GET, HEAD'],
      ['patch', `${C}`, 'GET, HEAD'],
      ['delete', `${C}manifest/`, 'GET, HEAD'],
      ['put', `${C}objects/`, 'GET, HEAD, POST'],
      ['post', `${C}objects/{object}/`, 'GET, HEAD, DELETE'],
      ['delete', `${C}objects/{object}/versions/`, 'GET, HEAD'],
    ] as const) {
      it(`${method.toUpperCase()} ${path} answers 405 with Allow: ${allow}`, async () => {
        const res = await request(ctx.app)[method](path.replace('{object}', objectId)).set('Authorization', basicAuth(ctx.keys.pro!)).set('Accept', TAXII_TYPE);
        assertTaxiiError(res, 405);
        assert.equal(res.headers.allow, allow);
      });
    }
  });

  describe('the order of checks (401, 403, 406, 404, 400)', () => {
    it('a bad key with a bad Accept is 401', async () => {
      const res = await request(ctx.app).get('/taxii2/').set('Authorization', basicAuth('wrong')).set('Accept', 'text/html');
      assertTaxiiError(res, 401);
    });

    it('a Team key with a bad Accept is 403', async () => {
      assertTaxiiError(await taxiiGet(ctx.app, '/taxii2/', ctx.keys.team!, 'text/html'), 403);
    });

    it('a bad Accept on an unknown collection is 406', async () => {
      assertTaxiiError(await taxiiGet(ctx.app, `${collectionPath(UNKNOWN_COLLECTION)}objects/`, ctx.keys.pro!, 'text/html'), 406);
    });

    it('a bad parameter on an unknown object is 404', async () => {
      assertTaxiiError(await taxiiGet(ctx.app, `${C}objects/${UNKNOWN_OBJECT}/?limit=0`, ctx.keys.pro!), 404);
    });
  });
});
