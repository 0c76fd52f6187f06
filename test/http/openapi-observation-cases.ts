// The OpenAPI response cases of analyze.php and the operator API's sightings (docs/observations.md): every status each documents, from a real request.
import type { Express } from 'express';
import request from 'supertest';
import { basicAuth } from '../taxii/taxii-request.js';
import type { Method } from './openapi-checker.js';
import { FAILURES, UNKNOWN_KEY, type OpenApiWorld } from './openapi-world.js';

const ANALYZE = '/api/analyze.php';
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

export function addObservationCases(w: OpenApiWorld): void {
  const { add, get, pro, afterFailure } = w;
  // ---- analyze.php -------------------------------------------------------------------------
  const form = (value: string, key: string, more: Record<string, unknown> = {}) => ({ ioc: b64(value), enrich: 1, probe: 0, pretty: 0, sanitize: 1, key, ...more });
  const post = (body: Record<string, unknown> | string, app?: () => Express) => request((app ?? (() => w.ctx.app))()).post(ANALYZE).type('form').send(body);
  const qidOf = async (value: string) => (await post(form(value, pro()))).body.qid as number;
  add(ANALYZE, 200, 'a stored value, as the pulsedive client sends it', () => post(form('198.51.100.1', pro())), 'post');
  add(ANALYZE, 200, 'an unknown value, pretty, the key in the query', () => request(w.ctx.app).post(`${ANALYZE}?key=${pro()}`).type('form').send({ ioc: b64('new.example'), pretty: 1 }), 'post');
  add(ANALYZE, 400, 'ioc that is no base64', () => post({ ioc: '***', key: pro() }), 'post');
  add(ANALYZE, 401, 'no key', () => post({ ioc: b64('198.51.100.1') }), 'post');
  add(ANALYZE, 401, 'an unknown key', () => post(form('198.51.100.1', UNKNOWN_KEY)), 'post');
  add(ANALYZE, 403, 'an admin key', () => post(form('198.51.100.1', w.adminKey), () => w.admin.app), 'post');
  add(ANALYZE, 413, 'a body over the limit', () => post(form('198.51.100.1', pro(), { padding: 'x'.repeat(70_000) })), 'post');
  add(ANALYZE, 415, 'a JSON body', () => request(w.ctx.app).post(`${ANALYZE}?key=${pro()}`).send({ ioc: b64('198.51.100.1') }), 'post');
  add(ANALYZE, 429, 'a Pro key, over its limit', () => post(form('198.51.100.1', w.tight.keys.pro!), () => w.tight.app), 'post');
  add(ANALYZE, 429, FAILURES, () => afterFailure(() => post(form('198.51.100.1', pro()), () => w.guessing)), 'post');
  add(ANALYZE, 500, 'a fault', () => post(form('198.51.100.1', UNKNOWN_KEY), () => w.broken), 'post');
  add(ANALYZE, 503, 'the database down', () => post(form('198.51.100.1', UNKNOWN_KEY), () => w.down), 'post');

  add(ANALYZE, 200, 'the result for a stored value', async () => get(`${ANALYZE}?qid=${await qidOf('host3.example.net')}&key=${pro()}`));
  add(ANALYZE, 200, 'the result for an unknown value, pretty', async () => get(`${ANALYZE}?qid=${await qidOf('not a value')}&pretty=1&key=${pro()}`));
  add(ANALYZE, 400, 'no qid', () => get(`${ANALYZE}?key=${pro()}`));
  add(ANALYZE, 401, 'no key', () => get(`${ANALYZE}?qid=1`));
  add(ANALYZE, 403, 'a key whose plan is no longer offered', () => get(`${ANALYZE}?qid=1&key=${w.ctx.keys.team}`, () => w.noTeam));
  add(ANALYZE, 404, 'another key\u2019s submission', async () => get(`${ANALYZE}?qid=${await qidOf('host3.example.net')}&key=${w.ctx.keys.business}`));
  add(ANALYZE, 429, 'a Pro key, over its limit', () => get(`${ANALYZE}?qid=1&key=${w.tight.keys.pro}`, () => w.tight.app));
  add(ANALYZE, 429, FAILURES, () => afterFailure(() => get(`${ANALYZE}?qid=1&key=${pro()}`, () => w.guessing)));
  add(ANALYZE, 500, 'a fault', () => get(`${ANALYZE}?qid=1&key=${UNKNOWN_KEY}`, () => w.broken));
  add(ANALYZE, 503, 'the database down', () => get(`${ANALYZE}?qid=1&key=${UNKNOWN_KEY}`, () => w.down));

  // ---- Operator API: sightings ---------------------------------------------------------------
  const admin = (method: 'get' | 'post', path: string) => request(w.admin.app)[method](path).set('Authorization', `Bearer ${w.adminKey}`);
  const adminCall = (method: Method, path: string, authorization: string | null, app: () => Express = () => w.admin.app) => {
    const req = request(app())[method](path);
    return authorization === null ? req : req.set('Authorization', authorization);
  };
  // What every operator API route answers before its own work, as addAdminCases sends it to the others.
  for (const [path, method] of [['/admin/api/sightings?tid=1', 'get'], ['/admin/api/sightings', 'post']] as const) {
    const template = '/admin/api/sightings';
    const withQuery = (extra: string) => `${path}${path.includes('?') ? '&' : '?'}${extra}`;
    add(template, 400, 'the key in the query', () => adminCall(method, withQuery(`key=${w.adminKey}`), null), method);
    add(template, 401, 'no credentials', () => adminCall(method, path, null), method);
    add(template, 401, 'Basic with user taxii2', () => adminCall(method, path, basicAuth(w.adminKey)), method);
    add(template, 403, 'a key of a plan', () => adminCall(method, path, `Basic ${Buffer.from(`admin:${w.admin.keys.pro}`).toString('base64')}`), method);
    add(template, 429, 'an address past its failed authentications', () => afterFailure(() => adminCall(method, path, `Bearer ${w.adminKey}`, () => w.guessing)), method);
    add(template, 500, 'a fault', () => adminCall(method, path, `Bearer ${UNKNOWN_KEY}`, () => w.broken), method);
    add(template, 503, 'the database down', () => adminCall(method, path, `Bearer ${UNKNOWN_KEY}`, () => w.down), method);
  }
  add('/admin/api/sightings', 201, 'a value sighted', () => admin('post', '/admin/api/sightings').send({ value: 'host3.example.net', note: 'case 1', at: '2026-01-01', count: 2 }), 'post');
  add('/admin/api/sightings', 201, 'a threat sighted', () => admin('post', '/admin/api/sightings').send({ tid: 1 }), 'post');
  add('/admin/api/sightings', 400, 'neither value nor tid', () => admin('post', '/admin/api/sightings').send({ count: 1 }), 'post');
  add('/admin/api/sightings', 404, 'a value no indicator holds', () => admin('post', '/admin/api/sightings').send({ value: 'nowhere.example' }), 'post');
  add('/admin/api/sightings', 413, 'a body over the limit', () => admin('post', '/admin/api/sightings').send({ tid: 1, note: 'x'.repeat(20_000) }), 'post');
  add('/admin/api/sightings', 415, 'a form body', () => admin('post', '/admin/api/sightings').type('form').send('tid=1'), 'post');
  add('/admin/api/sightings', 200, 'an indicator\u2019s sightings by value', () => admin('get', '/admin/api/sightings?value=host3.example.net'));
  add('/admin/api/sightings', 200, 'a threat\u2019s, a page of one', () => admin('get', '/admin/api/sightings?tid=1&limit=1'));
  add('/admin/api/sightings', 400, 'no target', () => admin('get', '/admin/api/sightings'));
  add('/admin/api/sightings', 404, 'an unknown iid', () => admin('get', '/admin/api/sightings?iid=9999'));
  add('/admin/api/why', 200, 'a sighted value', () => admin('get', '/admin/api/why?value=host3.example.net'));
}
