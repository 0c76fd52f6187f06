// The OpenAPI response cases of the lookup API and the exports: every status each documents, from a real request.
import type { Express } from 'express';
import { basicAuth, INDICATORS_COLLECTION, TEST_COLLECTION } from '../taxii/taxii-request.js';
import { FAILURES, UNKNOWN_COLLECTION, UNKNOWN_KEY, type OpenApiWorld } from './openapi-world.js';

export function addLookupCases(w: OpenApiWorld): void {
  const { add, get, pro, free, afterFailure } = w;
  // ---- Lookup API --------------------------------------------------------------------------
  for (const [template, byId, byName, links, missing] of [
    ['/api/threat.php', 'tid=1', 'threat=zbot', 'tid=1&get=links', 'tid=999'],
    ['/api/feed.php', 'fid=1', `feed=${encodeURIComponent('Botnet C&C (IPv4)')}&organization=${encodeURIComponent('Example Labs, Inc.')}`, 'fid=1&get=links', 'fid=999'],
  ] as const) {
    const idName = byId.split('=')[0]!;
    add(template, 200, 'by id, anonymous', () => get(`${template}?${byId}`));
    add(template, 200, 'by id, pretty, with a key', () => get(`${template}?${byId}&pretty=1&key=${pro()}`));
    add(template, 200, 'by name', () => get(`${template}?${byName}`));
    add(template, 200, 'links, page 0 of several', () => get(`${template}?${links}`));
    add(template, 200, 'links, the last page a Pro key may read', () => get(`${template}?${links}&page=1&key=${pro()}`));
    add(template, 200, 'links, past the end', () => get(`${template}?${links}&page=9&key=${w.ctx.keys.business}`));
    add(template, 200, 'links that fit on one page', () => get(`${template}?${idName}=2&get=links`));
    add(template, 400, 'no identifier', () => get(template));
    add(template, 400, 'a malformed identifier', () => get(`${template}?${idName}=0x1`));
    add(template, 400, 'a repeated identifier', () => get(`${template}?${idName}=1&${idName}=2`));
    add(template, 400, 'get other than links', () => get(`${template}?${byId}&get=all`));
    add(template, 400, 'a malformed page', () => get(`${template}?${links}&page=-1`));
    add(template, 400, 'pretty=2', () => get(`${template}?${byId}&pretty=2`));
    add(template, 400, 'a repeated key', () => get(`${template}?${byId}&key=${pro()}&key=${pro()}`));
    add(template, 401, 'an unknown key', () => get(`${template}?${byId}&key=${UNKNOWN_KEY}`));
    add(template, 401, 'a malformed key', () => get(`${template}?${byId}&key=short`));
    add(template, 403, 'a page beyond the plan\u2019s allowance', () => get(`${template}?${links}&page=1`));
    add(template, 403, 'a key whose plan is no longer offered', () => get(`${template}?${byId}&key=${w.ctx.keys.team}`, () => w.noTeam));
    add(template, 404, 'an unknown record', () => get(`${template}?${missing}`));
    add(template, 404, 'the links of an unknown record', () => get(`${template}?${missing}&get=links`));
    add(template, 429, 'anonymous, over its limit', () => get(`${template}?${byId}`, () => w.tight.app));
    add(template, 429, 'a Pro key, over its limit', () => get(`${template}?${byId}&key=${w.tight.keys.pro}`, () => w.tight.app));
    add(template, 429, FAILURES, () => afterFailure(() => get(`${template}?${byId}&key=${pro()}`, () => w.guessing)));
    add(template, 500, 'a fault', () => get(`${template}?${byId}`, () => w.broken));
    add(template, 503, 'the database down', () => get(`${template}?${byId}&key=${pro()}`, () => w.down));
  }

  // The indicator lookup, and info.php standing for each lookup (docs/interface.md section 4.4).
  for (const [template, found, missing] of [
    ['/api/indicator.php', 'indicator=HOST3.example.net.', 'iid=999'],
    ['/api/info.php', 'iid=3', 'tid=999'],
  ] as const) {
    add(template, 200, 'by value, anonymous', () => get(`${template}?indicator=198.51.100.1`));
    add(template, 200, 'by iid, pretty, with a key', () => get(`${template}?iid=3&pretty=1&key=${pro()}`));
    add(template, 200, 'an indicator\u2019s links', () => get(`${template}?iid=3&get=links`));
    add(template, 200, 'an indicator\u2019s properties', () => get(`${template}?iid=3&get=properties`));
    add(template, 400, 'no identifier', () => get(template));
    add(template, 400, 'a value that is no indicator', () => get(`${template}?indicator=no%20such%20thing`));
    add(template, 401, 'an unknown key', () => get(`${template}?${found}&key=${UNKNOWN_KEY}`));
    add(template, 403, 'a key whose plan is no longer offered', () => get(`${template}?${found}&key=${w.ctx.keys.team}`, () => w.noTeam));
    add(template, 404, 'an unknown record', () => get(`${template}?${missing}`));
    add(template, 429, 'anonymous, over its limit', () => get(`${template}?${found}`, () => w.tight.app));
    add(template, 429, FAILURES, () => afterFailure(() => get(`${template}?${found}&key=${pro()}`, () => w.guessing)));
    add(template, 500, 'a fault', () => get(`${template}?${found}`, () => w.broken));
    add(template, 503, 'the database down', () => get(`${template}?${found}&key=${pro()}`, () => w.down));
  }
  add('/api/info.php', 200, 'a threat by name, with what clients always send', () => get('/api/info.php?tname=zbot&sanitize=1&schema=1&summary=1&splitrisk=1'));
  add('/api/info.php', 200, 'a feed by name', () => get(`/api/info.php?feed=${encodeURIComponent('Botnet C&C (IPv4)')}&organization=${encodeURIComponent('Example Labs, Inc.')}`));
  add('/api/info.php', 200, 'a feed\u2019s links, page 0 of several', () => get('/api/info.php?fid=1&get=links'));
  add('/api/info.php', 403, 'a page beyond the plan\u2019s allowance', () => get('/api/info.php?tid=1&get=links&page=1'));

  // ---- Exports -----------------------------------------------------------------------------
  for (const format of ['txt', 'csv'] as const) {
    const template = `/export/{collection_id}.${format}`;
    const path = (id: string, query = '') => `/export/${id}.${format}${query}`;
    const basic = (url: string, key: () => string, app?: () => Express) => get(url, app).set('Authorization', basicAuth(key()));
    add(template, 200, 'the unfiltered collection with a Pro key', () => basic(path(INDICATORS_COLLECTION), pro));
    add(template, 200, 'the test collection with a Free key by query, two types', () => get(path(TEST_COLLECTION, `?type=ip,domain&key=${free()}`)));
    add(template, 200, 'URLs in the PAN-OS style', () => basic(path(INDICATORS_COLLECTION, '?type=url&style=panos'), pro));
    add(template, 200, 'the test collection by its alias with a Free key, CIDRs by the type pulls store them as', () => basic(path('test', '?type=cidr'), free));
    add(template, 200, 'a device limit: the two highest-risk lines of two types', () => basic(path(INDICATORS_COLLECTION, '?type=ip,domain&max=2'), pro));
    add(template, 304, 'an unchanged list', async () => {
      const first = await basic(path(TEST_COLLECTION), pro);
      return basic(path(TEST_COLLECTION), pro).set('If-None-Match', first.headers.etag as string);
    });
    add(template, 400, 'an unknown type', () => basic(path(INDICATORS_COLLECTION, '?type=ip,colour'), pro));
    add(template, 400, 'style given twice', () => basic(path(INDICATORS_COLLECTION, '?style=panos&style=panos'), pro));
    add(template, 400, 'a max of 0', () => basic(path(INDICATORS_COLLECTION, '?max=0'), pro));
    add(template, 401, 'no key', () => get(path(INDICATORS_COLLECTION)));
    add(template, 401, 'an unknown key in the query', () => get(path(INDICATORS_COLLECTION, `?key=${UNKNOWN_KEY}`)));
    add(template, 403, 'a Free key beyond the test collection', () => basic(path(INDICATORS_COLLECTION), free));
    add(template, 403, 'a key whose plan is no longer offered', () => basic(path(INDICATORS_COLLECTION), () => w.ctx.keys.team!, () => w.noTeam));
    add(template, 404, 'an unknown collection', () => basic(path(UNKNOWN_COLLECTION), pro));
    add(template, 429, 'a Pro key over its limit', () => basic(path(INDICATORS_COLLECTION), () => w.tight.keys.pro!, () => w.tight.app));
    add(template, 429, FAILURES, () => afterFailure(() => basic(path(INDICATORS_COLLECTION), pro, () => w.guessing)));
    add(template, 500, 'a fault', () => basic(path(INDICATORS_COLLECTION), pro, () => w.broken));
    add(template, 503, 'the database down', () => basic(path(INDICATORS_COLLECTION), pro, () => w.down));
  }
}
