// The OpenAPI response cases of the TAXII 2.1 gateway: what every endpoint answers before its resource, then each resource.
import request from 'supertest';
import { basicAuth, collectionPath, TAXII_TYPE } from '../taxii/taxii-request.js';
import type { Method } from './openapi-checker.js';
import { ALL, FAILURES, TEST, UNKNOWN_COLLECTION, UNKNOWN_KEY, UNKNOWN_OBJECT, type OpenApiWorld } from './openapi-world.js';

export function addTaxiiCases(w: OpenApiWorld): void {
  const { add, get, taxii, pro, free, afterFailure } = w;
  // ---- TAXII: what every endpoint answers before it reaches its resource -------------------
  const endpoints: [template: string, path: () => string, method: Method][] = [
    ['/taxii2/', () => '/taxii2/', 'get'],
    ['/taxii2/api/', () => '/taxii2/api/', 'get'],
    ['/taxii2/api/status/{status_id}/', () => '/taxii2/api/status/1234/', 'get'],
    ['/taxii2/api/collections/', () => '/taxii2/api/collections/', 'get'],
    ['/taxii2/api/collections/{collection_id}/', () => ALL, 'get'],
    ['/taxii2/api/collections/{collection_id}/manifest/', () => `${ALL}manifest/`, 'get'],
    ['/taxii2/api/collections/{collection_id}/objects/', () => `${ALL}objects/`, 'get'],
    ['/taxii2/api/collections/{collection_id}/objects/', () => `${ALL}objects/`, 'post'],
    ['/taxii2/api/collections/{collection_id}/objects/{object_id}/', () => `${ALL}objects/${w.objectId}/`, 'get'],
    ['/taxii2/api/collections/{collection_id}/objects/{object_id}/', () => `${ALL}objects/${w.objectId}/`, 'delete'],
    ['/taxii2/api/collections/{collection_id}/objects/{object_id}/versions/', () => `${ALL}objects/${w.objectId}/versions/`, 'get'],
  ];
  for (const [template, path, method] of endpoints) {
    add(template, 401, 'no credentials', () => request(w.ctx.app)[method](path()).set('Accept', TAXII_TYPE), method);
    add(template, 401, 'an unknown key in the query', () => request(w.ctx.app)[method](`${path()}?key=${UNKNOWN_KEY}&accept=${encodeURIComponent(TAXII_TYPE)}`), method);
    add(template, 401, 'Basic with another username', () => request(w.ctx.app)[method](path()).set('Authorization', basicAuth(pro(), 'admin')).set('Accept', TAXII_TYPE), method);
    add(template, 429, 'a Pro key over its limit', () => taxii(method, path(), () => w.tight.keys.pro!, TAXII_TYPE, () => w.tight.app), method);
    add(template, 429, FAILURES, () => afterFailure(() => taxii(method, path(), pro, TAXII_TYPE, () => w.guessing)), method);
    add(template, 403, 'a Free key beyond the test collection', () => taxii(method, path(), free), method);
    add(template, 406, 'an Accept without the TAXII type', () => taxii(method, path(), pro, 'application/json'), method);
    add(template, 406, 'no Accept', () => taxii(method, path(), pro, null), method);
    add(template, 406, 'query authentication with another accept', () => request(w.ctx.app)[method](`${path()}?key=${pro()}&accept=text/html`), method);
    add(template, 400, 'a repeated accept parameter', () => request(w.ctx.app)[method](`${path()}?key=${pro()}&accept=${encodeURIComponent(TAXII_TYPE)}&accept=x`), method);
    add(template, 500, 'a fault', () => taxii(method, path(), pro, TAXII_TYPE, () => w.broken), method);
    add(template, 503, 'the database down', () => taxii(method, path(), pro, TAXII_TYPE, () => w.down), method);
  }

  // ---- TAXII resources ---------------------------------------------------------------------
  const query = (key: () => string) => `key=${key()}&accept=${encodeURIComponent(TAXII_TYPE)}`;
  add('/taxii2/', 200, 'Basic auth', () => taxii('get', '/taxii2/', pro));
  add('/taxii2/', 200, 'query auth, pretty', () => get(`/taxii2/?${query(pro)}&pretty=1`));
  add('/taxii2/', 400, 'pretty=2', () => taxii('get', '/taxii2/?pretty=2', pro));
  add('/taxii2/api/', 200, 'Basic auth', () => taxii('get', '/taxii2/api/', pro));
  add('/taxii2/api/status/{status_id}/', 404, 'any status', () => taxii('get', '/taxii2/api/status/1234/', pro));
  add('/taxii2/api/collections/', 200, 'a Pro key', () => taxii('get', '/taxii2/api/collections/', pro));
  const collection = '/taxii2/api/collections/{collection_id}/';
  add(collection, 200, 'the Indicators collection', () => taxii('get', ALL, pro));
  add(collection, 200, 'the test collection with a Free key', () => taxii('get', TEST, free));
  add(collection, 404, 'an unknown collection', () => taxii('get', collectionPath(UNKNOWN_COLLECTION), pro));
  add(collection, 400, 'pretty=x', () => taxii('get', `${ALL}?pretty=x`, pro));

  for (const [suffix, filters] of [
    ['manifest/', 'match[type]=indicator,identity&match[version]=last&match[spec_version]=2.1&match[id]='],
    ['objects/', 'match[type]=indicator&match[version]=all&match[spec_version]=2.1&match[id]='],
  ] as const) {
    const template = `/taxii2/api/collections/{collection_id}/${suffix}`;
    add(template, 200, 'a page with more', () => taxii('get', `${ALL}${suffix}?limit=3`, pro));
    add(template, 200, 'the test collection with a Free key, pretty, by query', () => get(`${TEST}${suffix}?limit=2&pretty=1&${query(free)}`));
    add(template, 200, 'the page a next token leads to', async () => {
      const first = await taxii('get', `${ALL}${suffix}?limit=2&added_after=2000-01-01T00:00:00Z`, pro);
      return taxii('get', `${ALL}${suffix}?next=${encodeURIComponent(first.body.next)}`, pro);
    });
    add(template, 200, 'every filter', async () => taxii('get', `${ALL}${suffix}?${filters}${w.objectId}`, pro));
    add(template, 200, 'an empty page', () => taxii('get', `${ALL}${suffix}?added_after=2999-01-01T00:00:00Z`, pro));
    add(template, 200, 'the last page', () => taxii('get', `${TEST}${suffix}?limit=1000`, pro));
    add(template, 404, 'an unknown collection', () => taxii('get', `${collectionPath(UNKNOWN_COLLECTION)}${suffix}`, pro));
    add(template, 400, 'limit=0', () => taxii('get', `${ALL}${suffix}?limit=0`, pro));
    add(template, 400, 'an unknown match field', () => taxii('get', `${ALL}${suffix}?match[color]=red`, pro));
    add(template, 400, 'a malformed added_after', () => taxii('get', `${ALL}${suffix}?added_after=yesterday`, pro));
    add(template, 400, 'an altered next token', () => taxii('get', `${ALL}${suffix}?next=abc.def`, pro));
    add(template, 400, 'a repeated limit', () => taxii('get', `${ALL}${suffix}?limit=1&limit=2`, pro));
  }
  const objects = '/taxii2/api/collections/{collection_id}/objects/';
  add(objects, 403, 'a write with a Pro key', () => taxii('post', `${ALL}objects/`, pro).set('Content-Type', TAXII_TYPE).send('{"objects":[]}'), 'post');
  add(objects, 404, 'a write to an unknown collection', () => taxii('post', `${collectionPath(UNKNOWN_COLLECTION)}objects/`, pro), 'post');

  const object = '/taxii2/api/collections/{collection_id}/objects/{object_id}/';
  add(object, 200, 'an object', () => taxii('get', `${ALL}objects/${w.objectId}/`, pro));
  add(object, 200, 'an object, match[version]=first, in the test collection by query', () => get(`${TEST}objects/${w.objectId}/?match[version]=first&${query(free)}`));
  add(object, 200, 'no version for spec_version 2.0', () => taxii('get', `${ALL}objects/${w.objectId}/?match[spec_version]=2.0`, pro));
  add(object, 404, 'an unknown object', () => taxii('get', `${ALL}objects/${UNKNOWN_OBJECT}/`, pro));
  add(object, 400, 'match[type], which this endpoint does not take', () => taxii('get', `${ALL}objects/${w.objectId}/?match[type]=indicator`, pro));
  add(object, 403, 'a delete with a Pro key', () => taxii('delete', `${ALL}objects/${w.objectId}/`, pro), 'delete');
  add(object, 404, 'a delete in an unknown collection', () => taxii('delete', `${collectionPath(UNKNOWN_COLLECTION)}objects/${w.objectId}/`, pro), 'delete');

  const versions = '/taxii2/api/collections/{collection_id}/objects/{object_id}/versions/';
  add(versions, 200, 'the versions of an object', () => taxii('get', `${ALL}objects/${w.objectId}/versions/`, pro));
  add(versions, 200, 'none for spec_version 2.0, pretty', () => taxii('get', `${ALL}objects/${w.objectId}/versions/?match[spec_version]=2.0&pretty=1`, pro));
  add(versions, 404, 'an unknown object', () => taxii('get', `${ALL}objects/${UNKNOWN_OBJECT}/versions/`, pro));
  add(versions, 400, 'match[version], which this endpoint does not take', () => taxii('get', `${ALL}objects/${w.objectId}/versions/?match[version]=last`, pro));
}
