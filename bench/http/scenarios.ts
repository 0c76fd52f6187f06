// The HTTP benchmark's scenarios: request paths found in the served data, each checked to answer 200.
import type { StixManifestEntry } from '../medallion/medallion-server.js';
import { getJson, getOk } from './client.js';
import { log, type Options } from './common.js';
import type { Keys } from './data.js';

export const COLLECTION = 'a5cffbfe-c0ff-4842-a235-cb3a7a040a37';
export const OBJECTS = `/taxii2/api/collections/${COLLECTION}/objects/`;
export const MANIFEST = `/taxii2/api/collections/${COLLECTION}/manifest/`;
const TAXII_MEDIA_TYPE = 'application/taxii+json;version=2.1';
/** How deep the deep objects page starts: the walk follows `next` (limit=1000) past this many objects. */
const DEEP_OBJECTS = 5000;
/** The tail poll's `added_after` leaves this many objects after it, like a poller that is nearly up to date. */
export const TAIL_OBJECTS = 30;

export const SCENARIO_IDS = ['threat', 'indicator-value', 'indicator-iid', 'feed', 'links-first', 'links-deep', 'taxii-discovery', 'taxii-collections', 'taxii-objects', 'taxii-objects-query', 'taxii-objects-deep', 'taxii-poll-tail'];

export interface Scenario {
  id: string;
  path: string;
  headers: Record<string, string>;
  note?: string;
}

interface LinkedIndicator {
  iid: number;
  indicator: string;
  type: string;
}

interface Feed {
  fid: number;
  feed: string;
  organization: string;
  indicators: { total: number };
}

export interface Envelope {
  more?: boolean;
  next?: string;
  objects?: unknown[];
}

/** TAXII request headers: HTTP Basic as user taxii2, and the TAXII 2.1 media type. */
export function taxiiHeaders(password: string): Record<string, string> {
  return { Authorization: `Basic ${Buffer.from(`taxii2:${password}`).toString('base64')}`, Accept: TAXII_MEDIA_TYPE };
}

async function listFeeds(port: number, key: string): Promise<Feed[]> {
  const feeds: Feed[] = [];
  for (let fid = 1; ; fid++) {
    const res = await getJson<Feed>(port, `/api/feed.php?fid=${fid}&key=${key}`);
    if (res.status === 404) break;
    if (res.status !== 200) throw new Error(`GET feed ${fid}: ${res.status}`);
    feeds.push(res.json);
  }
  if (feeds.length === 0) throw new Error('the store has no feeds');
  return feeds;
}

async function lookupScenarios(port: number, key: string): Promise<Scenario[]> {
  const feeds = await listFeeds(port, key);
  const first = feeds[0]!;
  const biggest = feeds.reduce((a, b) => (b.indicators.total > a.indicators.total ? b : a));
  const links = `/api/feed.php?fid=${biggest.fid}&get=links`;
  const page0 = await getOk<{ results: LinkedIndicator[]; page_next?: number }>(port, `${links}&page=0&key=${key}`);
  const pages = page0.page_next === undefined ? 1 : Math.ceil(biggest.indicators.total / page0.results.length);
  const deep = Math.max(0, pages - 2);
  const linksNote = `fid ${biggest.fid}, the biggest feed: ${biggest.indicators.total.toLocaleString('en-US')} links, ${pages} page${pages === 1 ? '' : 's'} of ${page0.results.length}`;
  // The indicator lookups read one indicator of that page; a domain is written as a person pastes it
  // (upper case, trailing dot), so the value lookup pays for normalizing it.
  const sample = page0.results[Math.floor(page0.results.length / 2)];
  if (sample === undefined) throw new Error(`feed ${biggest.fid} has no linked indicators`);
  const typed = sample.type === 'domain' ? `${sample.indicator.toUpperCase()}.` : sample.indicator;
  const sampleNote = `${sample.type} ${sample.indicator} (iid ${sample.iid})${typed === sample.indicator ? '' : `, asked as ${typed}`}`;
  return [
    { id: 'threat', path: `/api/threat.php?tid=1&key=${key}`, headers: {} },
    { id: 'indicator-value', path: `/api/indicator.php?indicator=${encodeURIComponent(typed)}&key=${key}`, headers: {}, note: sampleNote },
    { id: 'indicator-iid', path: `/api/indicator.php?iid=${sample.iid}&key=${key}`, headers: {}, note: `iid ${sample.iid}` },
    { id: 'feed', path: `/api/feed.php?feed=${encodeURIComponent(first.feed)}&organization=${encodeURIComponent(first.organization)}&key=${key}`, headers: {} },
    { id: 'links-first', path: `${links}&page=0&key=${key}`, headers: {}, note: linksNote },
    { id: 'links-deep', path: `${links}&page=${deep}&key=${key}`, headers: {}, note: `page ${deep} of ${linksNote}` },
  ];
}

/** Follows `next` with limit=1000 from the start until `depth` objects are passed; the token there. */
async function deepNextToken(port: number, headers: Record<string, string>, depth: number): Promise<{ token: string; passed: number } | null> {
  let passed = 0;
  let token: string | null = null;
  for (let path = `${OBJECTS}?limit=1000`; passed < depth; ) {
    const page = await getOk<Envelope>(port, path, headers);
    if (!page.more || !page.next) break;
    passed += page.objects?.length ?? 0;
    token = page.next;
    path = `${OBJECTS}?limit=1000&next=${encodeURIComponent(token)}`;
  }
  return token === null ? null : { token, passed };
}

/** TAXII timestamps with 6 fractional digits ↔ microseconds since the epoch (below 2^53 until year 2255). */
function toMicros(timestamp: string): number {
  const match = /^(.{19})(?:\.(\d{1,6}))?Z$/.exec(timestamp);
  if (!match) throw new Error(`not a TAXII timestamp: ${timestamp}`);
  return Date.parse(`${match[1]}Z`) * 1000 + Number((match[2] ?? '').padEnd(6, '0'));
}

function fromMicros(us: number): string {
  return `${new Date(Math.floor(us / 1000)).toISOString().slice(0, 19)}.${String(us % 1_000_000).padStart(6, '0')}Z`;
}

/**
 * An `added_after` that leaves about `tail` objects after it: a bisection over time with the
 * manifest (limit=1000), then the date_added of the object `tail` from the end of that page.
 */
async function tailAddedAfter(port: number, headers: Record<string, string>, tail: number): Promise<{ addedAfter: string; objects: number }> {
  const probe = (us: number) => getOk<{ more?: boolean; objects?: StixManifestEntry[] }>(port, `${MANIFEST}?limit=1000&added_after=${fromMicros(us)}`, headers);
  const first = await getOk<{ objects?: StixManifestEntry[] }>(port, `${MANIFEST}?limit=1`, headers);
  let lo = toMicros(first.objects![0]!.date_added) - 1;
  let hi = Date.now() * 1000 + 1_000_000;
  for (let i = 0; i < 100; i++) {
    const at = i === 0 ? lo : Math.floor((lo + hi) / 2);
    const page = await probe(at);
    const entries = page.objects ?? [];
    if (page.more) lo = at;
    else if (entries.length > tail) return { addedAfter: entries[entries.length - tail - 1]!.date_added, objects: tail };
    else if (i === 0) return { addedAfter: fromMicros(at), objects: entries.length };
    else hi = at;
  }
  throw new Error('could not find the tail of the collection');
}

async function taxiiScenarios(port: number, key: string): Promise<Scenario[]> {
  const headers = taxiiHeaders(key);
  const deep = await deepNextToken(port, headers, DEEP_OBJECTS);
  const tail = await tailAddedAfter(port, headers, TAIL_OBJECTS);
  const scenarios: Scenario[] = [
    { id: 'taxii-discovery', path: '/taxii2/', headers },
    { id: 'taxii-collections', path: '/taxii2/api/collections/', headers },
    { id: 'taxii-objects', path: `${OBJECTS}?limit=100`, headers },
    { id: 'taxii-objects-query', path: `${OBJECTS}?limit=100&key=${key}&accept=application/taxii%2Bjson;version=2.1`, headers: {}, note: 'query-string key and accept' },
  ];
  if (deep) scenarios.push({ id: 'taxii-objects-deep', path: `${OBJECTS}?limit=100&next=${encodeURIComponent(deep.token)}`, headers, note: `after ${deep.passed.toLocaleString('en-US')} objects` });
  scenarios.push({ id: 'taxii-poll-tail', path: `${OBJECTS}?added_after=${tail.addedAfter}`, headers, note: `${tail.objects} objects after added_after` });
  return scenarios;
}

function selectScenarios(all: Scenario[], options: Options): Scenario[] {
  return options.scenarios === null ? all : all.filter((s) => options.scenarios!.includes(s.id));
}

export async function discoverScenarios(port: number, keys: Keys, options: Options): Promise<Scenario[]> {
  const scenarios = selectScenarios([...(await lookupScenarios(port, keys.business)), ...(await taxiiScenarios(port, keys.pro))], options);
  for (const s of scenarios) log(`  ${s.id.padEnd(20)} GET ${s.path.replace(/key=[^&]+/, 'key=…')}${s.note ? `  (${s.note})` : ''}`);
  return scenarios;
}
