// The OpenAPI response cases of explore.php and search.php (docs/explore.md): every status each documents, from a real request.
import { FAILURES, UNKNOWN_KEY, type OpenApiWorld } from './openapi-world.js';

/** The fixture's risks as the pulsedive client names them: its default `risk[]`, all of them. */
const CLIENT_RISKS = ['unknown', 'none', 'low', 'medium', 'high', 'critical', 'retired'];
const CLIENT_TYPES = ['ip', 'ipv6', 'url', 'domain', 'artifact'];
const CLIENT_CATEGORIES = ['general', 'abuse', 'apt', 'attack', 'botnet', 'crime', 'exploitkit', 'fraud', 'group', 'malware', 'proxy', 'pup', 'reconnaissance', 'spam', 'terrorism', 'phishing', 'vulnerability'];

/** A query string with each list parameter once per value, as `requests` sends the pulsedive client's `name[]` lists. */
function queryOf(params: Record<string, string | number | readonly string[]>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) for (const one of Array.isArray(value) ? value : [value]) query.append(name, String(one));
  return query.toString();
}

export function addExploreCases(w: OpenApiWorld): void {
  const { add, get, pro, free, afterFailure } = w;
  const explore = (params: Record<string, string | number>) => `/api/explore.php?${queryOf(params)}`;
  /** search.php as pulsedive 0.1.0's `search()` sends it: its defaults, the call's own arguments, then pretty, sanitize and the key. */
  const clientSearch = (own: Record<string, string | readonly string[]>, key = pro()) =>
    `/api/search.php?${queryOf({ value: '', export: '0', 'type[]': CLIENT_TYPES, 'risk[]': CLIENT_RISKS, limit: 'hundred', ...own, pretty: '0', sanitize: '1', key })}`;
  const search = (params: Record<string, string | number | readonly string[]>) => `/api/search.php?${queryOf(params)}`;

  // ---- explore.php -------------------------------------------------------------------------
  const E = '/api/explore.php';
  const domains = 'type=domain and ioc=*.example.net';
  add(E, 200, 'the subdomains of a parent, anonymous', () => get(explore({ q: domains })));
  add(E, 200, 'as OWASP Amass asks (search=indicators, limit=1000)', () => get(explore({ search: 'indicators', q: domains, limit: 1000, key: pro() })));
  add(E, 200, 'threats, pretty, with a key', () => get(explore({ type: 'threats', q: 'category=botnet or zbot', pretty: 1, key: pro() })));
  add(E, 200, 'page 0 of several', () => get(explore({ q: 'ioc=198.51.100.0/24', limit: 5 })));
  add(E, 200, 'the last page a Pro key may read', () => get(explore({ q: 'ioc=198.51.100.0/24', limit: 5, page: 1, key: pro() })));
  add(E, 200, 'past the end, Business', () => get(explore({ q: 'ioc=198.51.100.0/24', limit: 5, page: 9, key: w.ctx.keys.business! })));
  add(E, 200, 'nothing matches', () => get(explore({ q: 'threat=nobody and risk>=high' })));
  add(E, 200, 'CSV of the pages a Free key may read', () => get(explore({ q: 'ioc=*example.net', limit: 3, export: 'csv', key: free() })));
  add(E, 200, 'CSV of threats, anonymous', () => get(explore({ type: 'threats', q: 'risk>=high', export: 'csv' })));
  add(E, 400, 'no q', () => get(E));
  add(E, 400, 'a repeated q', () => get(`${explore({ q: 'zeus' })}&q=emotet`));
  add(E, 400, 'an unknown field', () => get(explore({ q: 'colour=red' })));
  add(E, 400, 'a term without its value', () => get(explore({ q: 'risk=' })));
  add(E, 400, 'a wildcard without three characters in a row', () => get(explore({ q: 'ioc=*.n' })));
  add(E, 400, 'limit=0', () => get(explore({ q: 'zeus', limit: 0 })));
  add(E, 400, 'limit=1001', () => get(explore({ q: 'zeus', limit: 1001 })));
  add(E, 400, 'type=feeds', () => get(explore({ q: 'zeus', type: 'feeds' })));
  add(E, 400, 'export=xml', () => get(explore({ q: 'zeus', export: 'xml' })));
  add(E, 400, 'a malformed page', () => get(explore({ q: 'zeus', page: -1 })));
  add(E, 400, 'pretty=2', () => get(explore({ q: 'zeus', pretty: 2 })));

  // ---- search.php --------------------------------------------------------------------------
  const S = '/api/search.php';
  add(S, 200, 'search(value) with the client\u2019s defaults', () => get(clientSearch({ value: 'example.net' })));
  add(S, 200, 'search(value, risk=[...], indicator_type=[...])', () => get(clientSearch({ value: 'example', 'risk[]': ['critical', 'high'], 'type[]': ['domain'] })));
  add(S, 200, 'feed[], threat[], attribute[] and limit as a number', () => get(clientSearch({ 'feed[]': ['Botnet C&C (IPv4)'], 'threat[]': ['Zeus', 'Emotet'], 'attribute[]': ['443'], limit: '5' })));
  // The fixture's indicators were last seen months before the test clock's now: none within a week.
  add(S, 200, 'lastseen=week: nothing seen since', () => get(clientSearch({ value: 'example', lastseen: 'week' })));
  add(S, 200, 'no condition: every indicator, page 0 of several', () => get(search({ limit: 5 })));
  add(S, 200, 'search.threat with every category', () => get(search({ search: 'threat', value: 'zeus', 'category[]': CLIENT_CATEGORIES, 'risk[]': CLIENT_RISKS, splitrisk: 0, pretty: 0, sanitize: 1 })));
  add(S, 200, 'search.feed', () => get(search({ search: 'feed', value: 'sinkhole', 'category[]': CLIENT_CATEGORIES, splitrisk: 0, key: pro() })));
  add(S, 200, 'search.to_csv: export=1', () => get(clientSearch({ value: 'example', export: '1', limit: 'tenthousand' })));
  add(S, 200, 'feeds as CSV', () => get(search({ search: 'feed', value: 'feed', export: 1 })));
  add(S, 400, 'lastseen=fortnight', () => get(clientSearch({ value: 'zeus', lastseen: 'fortnight' })));
  add(S, 400, 'limit=lots', () => get(clientSearch({ value: 'zeus', limit: 'lots' })));
  add(S, 400, 'export=2', () => get(search({ value: 'zeus', export: 2 })));
  add(S, 400, 'search=colour', () => get(search({ value: 'zeus', search: 'colour' })));
  add(S, 400, 'an unknown risk in risk[]', () => get(clientSearch({ value: 'zeus', 'risk[]': ['hgih'] })));
  add(S, 400, 'a value too short for a wildcard', () => get(search({ value: '*.n' })));

  // ---- What both share: keys, plans, limits, faults ----------------------------------------
  for (const [template, path, csv] of [
    [E, (extra: string) => `${explore({ q: domains })}${extra}`, explore({ q: domains, export: 'csv' })],
    [S, (extra: string) => `${search({ value: 'example' })}${extra}`, search({ value: 'example', export: 1 })],
  ] as const) {
    add(template, 401, 'an unknown key', () => get(path(`&key=${UNKNOWN_KEY}`)));
    add(template, 401, 'a malformed key', () => get(path('&key=short')));
    add(template, 403, 'a page beyond the plan\u2019s allowance', () => get(path('&limit=2&page=1')));
    add(template, 403, 'a key whose plan is no longer offered', () => get(path(`&key=${w.ctx.keys.team}`), () => w.noTeam));
    add(template, 403, 'an admin key', () => get(path(`&key=${w.adminKey}`), () => w.admin.app));
    add(template, 429, 'anonymous, over its limit', () => get(path(''), () => w.tight.app));
    add(template, 429, 'a Pro key, over its limit', () => get(path(`&key=${w.tight.keys.pro}`), () => w.tight.app));
    add(template, 429, FAILURES, () => afterFailure(() => get(path(`&key=${pro()}`), () => w.guessing)));
    add(template, 500, 'a fault', () => get(path(''), () => w.broken));
    add(template, 500, 'a fault while the CSV is read', () => get(csv, () => w.broken));
    add(template, 503, 'the database down', () => get(path(`&key=${pro()}`), () => w.down));
    add(template, 503, 'the database down while the CSV is read', () => get(csv, () => w.down));
  }
}
