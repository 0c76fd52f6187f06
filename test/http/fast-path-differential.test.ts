// The fast path held equal to the Express stack, both built from the surfaces' route tables: one corpus of
// requests over real sockets to a server with the fast path and one without (one store, one config, fresh
// limiter state each) must give the same answers byte for byte, the same log lines and metrics (but for
// which way each request was answered), and the same limiter counts.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { loadConfig, type Config } from '../../src/config.js';
import type { Store } from '../../src/store/contract/store.js';
import { basic, learn, MAIN, openCorpusStore, PLANS, roomy, TAXII, TEST, type Keys } from './corpus-store.js';
import { redisPrefix, removeRedisKeys, startServer, type Answer, type Sent, type Server } from './fast-path-pair.js';

const REDIS_URL = process.env.TEST_REDIS_URL;

/** One corpus entry: a request sent `times` times to each server in turn; `fast`: answered without Express the last time (true) or every time not (false). */
interface Entry {
  sent: Sent;
  times?: number;
  fast?: boolean;
}

const get = (path: string, headers?: Record<string, string>, more: Partial<Entry> = {}): Entry => ({ sent: { method: 'GET', path, ...(headers ? { headers } : {}) }, ...more });
const fast = (path: string, headers?: Record<string, string>) => get(path, headers, { fast: true });
const slow = (path: string, headers?: Record<string, string>) => get(path, headers, { fast: false });

/**
 * What may differ between the two servers' answers, and why: `Date` (the clock). With Redis
 * counters also what the clock decides there: each server's per-second window opens at its own
 * first request (rate-limit-redis windows run from the first hit), so that window's remaining count
 * may differ, and every window's reset (`t=`, `Retry-After`) is counted down by the clock between
 * the two answers (compared within a second). The memory counters run on a stopped clock, so there
 * nothing but `Date` may differ.
 */
function comparable(answer: Answer, timed: boolean) {
  const headers = answer.headers
    .filter(([name]) => name.toLowerCase() !== 'date')
    .map(([name, value]) => {
      const lower = name.toLowerCase();
      if (!timed) return `${name}: ${value}`;
      if (lower === 'ratelimit') return `${name}: ${value.replace(/t=\d+/, 't=~').replace(/^("second"; r=)\d+/, '$1~')}`;
      if (lower === 'x-requests-remaining-second' || lower === 'retry-after') return `${name}: ~`;
      return `${name}: ${value}`;
    });
  return { status: answer.status, headers, body: answer.body.toString('base64') };
}

const retryAfter = (answer: Answer) => answer.headers.find(([name]) => name.toLowerCase() === 'retry-after')?.[1];

/** The log lines without what the clock decides (time, ms) and which way each request was answered (path). */
const logged = (server: Server) =>
  server.logLines.map((line) => {
    const { time: _time, ms: _ms, path: _path, ...rest } = JSON.parse(line) as Record<string, unknown>;
    return rest;
  });

/** How many log lines say each way of answering. */
const answeredBy = (server: Server) => {
  const ways: Record<string, number> = {};
  for (const line of server.logLines) {
    const { path } = JSON.parse(line) as { path: string };
    ways[path] = (ways[path] ?? 0) + 1;
  }
  return ways;
};

/**
 * The metrics without the request durations (their buckets and sums; the counts stay), the request
 * counts summed over the `path` label (which way each was answered), and the `path` label's values apart.
 */
const counted = async (server: Server) => {
  const lines = (await server.metrics.scrape()).split('\n').filter((line) => !/^threatgate_http_request_duration_seconds_(bucket|sum)/.test(line));
  const requests = new Map<string, number>();
  const rest: string[] = [];
  for (const line of lines) {
    const sample = /^(threatgate_http_requests_total\{.*?),?path="(fast|express)"(.*\}) (\d+)$/.exec(line);
    if (!sample) rest.push(line);
    else requests.set(`${sample[1]}${sample[3]}`, (requests.get(`${sample[1]}${sample[3]}`) ?? 0) + Number(sample[4]));
  }
  return [...rest, ...[...requests].map(([labels, n]) => `${labels} ${n}`).sort()];
};

/** The request counts the metrics give for each way of answering. */
const countedBy = async (server: Server) => {
  const ways: Record<string, number> = {};
  for (const line of (await server.metrics.scrape()).split('\n')) {
    const sample = /^threatgate_http_requests_total\{.*path="(fast|express)".*\} (\d+)$/.exec(line);
    if (sample) ways[sample[1]!] = (ways[sample[1]!] ?? 0) + Number(sample[2]);
  }
  return ways;
};

interface Run {
  entries: number;
  requests: number;
  fastAnswers: number;
  mismatches: string[];
}

/** Sends the corpus to both servers, each request to the fast one first, and compares every answer. */
async function runCorpus(fastServer: Server, plain: Server, corpus: readonly Entry[], timed: boolean): Promise<Run> {
  const run: Run = { entries: corpus.length, requests: 0, fastAnswers: 0, mismatches: [] };
  for (const entry of corpus) {
    const times = entry.times ?? 3;
    for (let i = 0; i < times; i++) {
      const before = fastServer.expressCalls();
      const a = await fastServer.send(entry.sent);
      const viaExpress = fastServer.expressCalls() > before;
      const plainBefore = plain.expressCalls();
      const b = await plain.send(entry.sent);
      run.requests += 2;
      if (plain.expressCalls() === plainBefore) run.mismatches.push(`${entry.sent.method} ${entry.sent.path}: answered without Express with fastPath false`);
      if (!viaExpress) run.fastAnswers++;
      const what = `${entry.sent.method} ${entry.sent.path.replace(/key=[\w-]+/g, 'key=…')} #${i + 1}`;
      try {
        assert.deepEqual(comparable(a, timed), comparable(b, timed));
      } catch (error) {
        run.mismatches.push(`${what}: ${(error as Error).message}`);
      }
      if (timed && Math.abs(Number(retryAfter(a) ?? 0) - Number(retryAfter(b) ?? 0)) > 1) run.mismatches.push(`${what}: Retry-After ${retryAfter(a)} against ${retryAfter(b)}`);
      const last = i === times - 1;
      if (entry.fast === true && last && viaExpress) run.mismatches.push(`${what}: expected the fast path, Express answered (${a.status})`);
      if (entry.fast === false && !viaExpress) run.mismatches.push(`${what}: expected Express, the fast path answered (${a.status})`);
    }
  }
  return run;
}

/** Lookups of every kind for one client (`k`: its `&key=` or nothing), each answered from the cache once it is there. */
function lookups(k: string): Entry[] {
  return [
    fast(`/api/threat.php?tid=1${k}`),
    fast(`/api/threat.php?threat=zeus${k}`),
    fast(`/api/feed.php?fid=1${k}`),
    fast(`/api/feed.php?feed=Botnet%20C%26C%20(IPv4)&organization=Example%20Labs%2C%20Inc.${k}`),
    fast(`/api/feed.php?fid=1&get=links&page=0${k}`),
    get(`/api/feed.php?fid=1&get=links&page=1${k}`),
    get(`/api/feed.php?fid=1&get=links&page=3${k}`),
    fast(`/api/threat.php?tid=1&get=links&pretty=1${k}`),
    fast(`/api/indicator.php?iid=5${k}`),
    fast(`/api/indicator.php?indicator=HOST3.EXAMPLE.NET.${k}`),
    fast(`/api/info.php?tid=2${k}`),
    fast(`/api/info.php?fid=2&pretty=1${k}`),
    fast(`/api/info.php?indicator=198.51.100.7${k}`),
    fast(`/api/info.php?tname=Emotet&get=links&summary=1${k}`),
    { sent: { method: 'HEAD', path: `/api/threat.php?tid=2${k}` }, fast: true },
  ];
}

/** The TAXII resources and listings for one key (Basic), paged by `next`; `learned` holds a token and an object id. */
function taxiiReads(key: string, learned: { next: string; objectId: string }): Entry[] {
  const h = { Accept: TAXII, Authorization: basic(key) };
  const objects = `/taxii2/api/collections/${MAIN}/objects/`;
  return [
    fast('/taxii2/', h),
    fast('/taxii2/api/', h),
    fast('/taxii2/api/collections/', h),
    fast(`/taxii2/api/collections/${TEST}/`, h),
    fast(`/taxii2/api/collections/${MAIN}/`, h),
    fast(`/taxii2/api/collections/${TEST}/objects/?limit=2`, h),
    fast(`${objects}?limit=2`, h),
    fast(`${objects}?limit=2&next=${encodeURIComponent(learned.next)}`, h),
    fast(`/taxii2/api/collections/${MAIN}/manifest/?limit=2`, h),
    fast(`${objects}${learned.objectId}/`, h),
    fast(`${objects}${learned.objectId}/versions/`, h),
    fast(`${objects}?match[type]=indicator&limit=3`, h),
    fast(`${objects}?added_after=2025-01-01T00:00:00Z&limit=2`, h),
  ];
}

function mainCorpus(keys: Keys, learned: Awaited<ReturnType<typeof learn>>): Entry[] {
  const pro = keys.byPlan.pro!.key;
  const business = `&key=${keys.byPlan.business!.key}`;
  const t = { Accept: TAXII, Authorization: basic(pro) };
  const corpus: Entry[] = [];
  for (const plan of PLANS) corpus.push(...lookups(`&key=${keys.byPlan[plan]!.key}`));
  corpus.push(...lookups(''));
  for (const plan of ['pro', 'feed', 'free', 'team']) corpus.push(...taxiiReads(keys.byPlan[plan]!.key, learned));
  corpus.push(
    // Lookups: conditional requests, encodings and Accepts that change nothing, bad keys, and what the fast path leaves to Express.
    fast(`/api/threat.php?tid=1${business}`, { 'If-None-Match': '*' }),
    fast(`/api/threat.php?tid=1${business}`, { 'If-None-Match': '"abc"', 'If-Modified-Since': 'Thu, 15 Jan 2026 10:00:00 GMT' }),
    fast(`/api/threat.php?tid=1${business}`, { 'Accept-Encoding': 'gzip', Accept: 'text/html' }),
    fast(`/api/threat.php/?tid=1${business}`),
    fast(`/api/threat.php?tid=1&key=${keys.unknown}`),
    fast('/api/threat.php?tid=1&key=short'),
    fast(`/api/threat.php?tid=1&key=${keys.revoked}`),
    fast(`/api/threat.php?tid=1&key=${keys.admin}`),
    fast(`/api/threat.php?tid=1&key=a&key=b`),
    slow(`/API/threat.php?tid=1${business}`),
    slow(`/api/threat.php?tid=1&tid=2${business}`),
    slow(`/api/threat.php?tid=abc${business}`),
    slow(`/api/threat.php?tid=1&pretty=2${business}`),
    slow(`/api/threat.php?tid=999999${business}`),
    slow(`/api/indicator.php?indicator=not%20an%20indicator${business}`),
    slow(`/api//threat.php?tid=1${business}`),
    slow(`/api/nothing.php${business}`),
    { sent: { method: 'POST', path: `/api/threat.php?tid=1${business}` }, fast: false },
    { sent: { method: 'GET', path: `/api/threat.php?tid=1${business}`, body: 'tid=2' }, fast: false },
    // TAXII: query-string keys, Accepts, conditional requests, credentials, and what goes to Express.
    fast(`/taxii2/?key=${pro}&accept=application/taxii%2Bjson;version=2.1`),
    fast(`/taxii2/?key=${pro}&accept=application/taxii+json;version=2.1`),
    fast(`/taxii2/api/collections/${MAIN}/objects/?limit=2&key=${pro}&accept=application/taxii%2Bjson`),
    fast(`/taxii2/?key=${pro}&accept=a&accept=b`),
    fast('/taxii2/', { ...t, Accept: 'application/json' }),
    fast('/taxii2/', { ...t, Accept: 'application/taxii+json;version=2.0' }),
    fast('/taxii2/', { ...t, Accept: '*/*' }),
    fast('/taxii2/', { Authorization: basic(pro) }),
    fast('/taxii2/', { ...t, Accept: 'application/taxii+json;q=0, */*' }),
    fast('/taxii2/', { ...t, Accept: 'application/taxii+json;version=2.1, application/json;q=0.5' }),
    fast(`/taxii2/api/collections/${MAIN}/objects/?limit=2`, { ...t, Accept: 'application/json' }),
    { sent: { method: 'HEAD', path: '/taxii2/', headers: t }, fast: true },
    { sent: { method: 'HEAD', path: `/taxii2/api/collections/${MAIN}/objects/?limit=2`, headers: t }, fast: true },
    fast('/taxii2/', { ...t, 'If-None-Match': '*' }),
    fast(`/taxii2/api/collections/${MAIN}/objects/?limit=2`, { ...t, 'If-None-Match': '*' }),
    fast(`/taxii2/api/collections/${MAIN}/objects/?limit=2`, { ...t, 'Accept-Encoding': 'gzip' }),
    fast('/taxii2/?pretty=1', t),
    fast(`/taxii2/api/collections/${MAIN}/objects/?limit=2&pretty=1`, t),
    fast('/taxii2/?pretty=yes', t),
    fast('/taxii2', t),
    fast('/taxii2/api/collections', t),
    fast('/taxii2/', { Accept: TAXII }),
    fast('/taxii2/', { Accept: TAXII, Authorization: 'Basic !!!' }),
    fast('/taxii2/', { Accept: TAXII, Authorization: basic(pro, 'admin') }),
    fast('/taxii2/', { Accept: TAXII, Authorization: basic(keys.unknown) }),
    fast('/taxii2/', { Accept: TAXII, Authorization: basic(keys.admin) }),
    slow('/taxii2/api/collections/00000000-0000-4000-8000-000000000000/', t),
    slow(`/taxii2/api/collections/${MAIN.replace('-', '%2D')}/`, t),
    slow(`/taxii2/api/collections/${MAIN}/objects/?limit=0`, t),
    slow('/taxii2/api/status/abc/', t),
    slow('/TAXII2/', t),
    { sent: { method: 'POST', path: `/taxii2/api/collections/${MAIN}/objects/`, headers: { ...t, 'Content-Type': TAXII }, body: '{}' }, fast: false },
    { sent: { method: 'DELETE', path: `/taxii2/api/collections/${MAIN}/objects/${learned.objectId}/`, headers: t }, fast: false },
    // Exports: a poll naming the current list is answered on the fast path (304, or whatever the checks say first); a list itself by Express.
    slow(`/export/${TEST}.txt`, { Authorization: basic(pro) }),
    slow(`/export/test.csv?max=3&key=${pro}`),
    slow(`/export/${TEST}.txt?max=5`, { Authorization: basic(pro), 'Accept-Encoding': 'gzip' }),
    { sent: { method: 'HEAD', path: `/export/${TEST}.csv`, headers: { Authorization: basic(pro) } }, fast: false },
    fast(`/export/${TEST}.txt`, { Authorization: basic(pro), 'If-None-Match': learned.etag }),
    fast(`/export/test.txt`, { Authorization: basic(pro), 'If-None-Match': `"x", ${learned.etag}` }),
    fast(`/export/test.csv?max=3&key=${pro}`, { 'If-None-Match': learned.csvEtag, 'Accept-Encoding': 'gzip' }),
    { sent: { method: 'HEAD', path: `/export/${TEST}.txt`, headers: { Authorization: basic(pro), 'If-None-Match': learned.etag } }, fast: true },
    fast(`/export/${TEST}.txt`, { Authorization: basic(pro), 'If-None-Match': learned.etag, 'Cache-Control': 'no-cache' }),
    fast(`/export/${MAIN}.txt`, { Authorization: basic(keys.byPlan.free!.key), 'If-None-Match': learned.mainEtag }),
    fast(`/export/${MAIN}.txt`, { Authorization: basic(keys.unknown), 'If-None-Match': learned.mainEtag }),
    slow(`/export/${TEST}.txt`, { Authorization: basic(pro), 'If-None-Match': 'W/"an-older-list"' }),
    slow(`/export/${TEST}.txt?max=5`, { Authorization: basic(pro), 'If-None-Match': learned.etag }),
    slow(`/export/${MAIN}.txt`, { Authorization: basic(keys.byPlan.free!.key) }),
    slow('/export/test.x.txt', { Authorization: basic(pro), 'If-None-Match': learned.etag }),
    slow('/export/.txt', { Authorization: basic(pro), 'If-None-Match': learned.etag }),
    slow(`/export/${TEST}.txt?max=0`, { Authorization: basic(pro) }),
    slow('/export/nothing.txt', { Authorization: basic(pro) }),
    slow('/healthz'),
    slow('/nowhere'),
  );
  return corpus;
}

/** Every plan and anonymous past its day's budget (10): lookups, then TAXII (403 for a plan without it, until 429 wins). */
function burstCorpus(keys: Keys, timed: boolean): Entry[] {
  const corpus: Entry[] = [];
  for (const plan of [...PLANS, 'anonymous']) {
    const key = keys.byPlan[plan]?.key;
    corpus.push(get(`/api/threat.php?tid=1${key ? `&key=${key}` : ''}`, undefined, { times: 6 }));
    corpus.push(get('/taxii2/', key ? { Accept: TAXII, Authorization: basic(key) } : { Accept: TAXII }, { times: 6 }));
  }
  // On the stopped clock, the custom plan's per-second window (3) fills as a day's would.
  if (!timed) corpus.push(get(`/api/feed.php?fid=1&key=${keys.byPlan.custom!.key}`, undefined, { times: 1 }));
  return corpus;
}

/** Failed authentications past auth.failuresPerMinute (3): then a valid key from the same address is refused too. */
function failureCorpus(keys: Keys): Entry[] {
  return [
    get(`/api/threat.php?tid=1&key=${keys.unknown}`, undefined, { times: 5 }),
    get('/taxii2/', { Accept: TAXII, Authorization: basic(keys.unknown) }, { times: 2 }),
    get(`/api/threat.php?tid=1&key=${keys.byPlan.business!.key}`, undefined, { times: 2 }),
  ];
}

for (const counters of ['memory', 'Redis'] as const) {
  const timed = counters === 'Redis';
  const skip = timed && !REDIS_URL ? 'set TEST_REDIS_URL to compare the paths with Redis counters' : false;

  describe(`the fast path against the Express stack, ${counters} counters`, { skip }, () => {
    const pairs: { fast: Server; plain: Server }[] = [];
    const prefixes: string[] = [];
    let store: Store;
    let dir: string;
    let keys: Keys;
    let learned: Awaited<ReturnType<typeof learn>>;
    const pair = async (config: Config) => {
      const redis = (name: string) => {
        const prefix = redisPrefix(name);
        prefixes.push(prefix);
        return REDIS_URL && timed ? { url: REDIS_URL, prefix } : undefined;
      };
      const made = { fast: await startServer(store, config, true, redis('fast')), plain: await startServer(store, config, false, redis('plain')) };
      pairs.push(made);
      return made;
    };
    const base = loadConfig({ overrides: { cache: { versionCheckMs: 0 }, linksPageSize: 5, plans: roomy({}), auth: { failuresPerMinute: 1000 } } });

    before(async () => {
      ({ store, dir, keys } = await openCorpusStore(base));
      learned = await learn(store, base, keys.byPlan.pro!.key);
    });
    after(async () => {
      for (const { fast: a, plain: b } of pairs) await Promise.all([a.close(), b.close()]);
      await store.close();
      rmSync(dir, { recursive: true, force: true });
      if (REDIS_URL && timed) for (const prefix of prefixes) await removeRedisKeys(REDIS_URL, prefix);
    });

    /**
     * The checks every corpus ends with: the same lines logged, the same metrics, the same counts
     * left in the limiter stores; and the log and the metrics say the fast path answered exactly
     * the requests Express did not see, on the server that has it.
     */
    const assertSameAftermath = async (fastServer: Server, plain: Server, run: Run) => {
      assert.deepEqual(logged(fastServer), logged(plain));
      assert.deepEqual(await counted(fastServer), await counted(plain));
      const total = run.requests / 2;
      assert.deepEqual(answeredBy(plain), { express: total });
      assert.deepEqual(answeredBy(fastServer), { express: total - run.fastAnswers, ...(run.fastAnswers > 0 ? { fast: run.fastAnswers } : {}) });
      assert.deepEqual(await countedBy(fastServer), answeredBy(fastServer));
      assert.deepEqual(await countedBy(plain), answeredBy(plain));
      const counterKeys = ['ip:127.0.0.1', ...Object.values(keys.byPlan).map(({ id }) => `key:${id}`)];
      const [a, b] = [await fastServer.counts(counterKeys), await plain.counts(counterKeys)];
      assert.deepEqual(a, b);
      assert.ok(Object.values(a).some((hits) => hits > 0), 'the limiter stores were counted in');
    };

    describe('every surface, every plan and anonymous, bad keys, conditional requests, HEAD, odd Accepts and paths', () => {
      let run: Run;
      let servers: { fast: Server; plain: Server };
      before(async () => {
        servers = await pair(base);
        run = await runCorpus(servers.fast, servers.plain, mainCorpus(keys, learned), timed);
      });
      it('gives the same status, headers and body to every request, and takes the ones it should', () => {
        assert.deepEqual(run.mismatches, []);
        assert.ok(run.entries > 200 && run.fastAnswers > 300, `${run.entries} entries, ${run.fastAnswers} answers on the fast path`);
      });
      it('logs the same lines, counts the same metrics and leaves the same limiter counts', () => assertSameAftermath(servers.fast, servers.plain, run));
    });

    describe('over-limit bursts until 429, and failed authentications past their limit', () => {
      let run: Run;
      let servers: { fast: Server; plain: Server };
      before(async () => {
        const limits = roomy({ perDay: 10 });
        if (!timed) limits.custom = { ...limits.custom!, perSecond: 3, perDay: 1_000_000 };
        servers = await pair(loadConfig({ overrides: { cache: { versionCheckMs: 0 }, linksPageSize: 5, plans: limits, auth: { failuresPerMinute: 3 } } }));
        const bursts = await runCorpus(servers.fast, servers.plain, burstCorpus(keys, timed), timed);
        const failures = await runCorpus(servers.fast, servers.plain, failureCorpus(keys), timed);
        run = { entries: bursts.entries + failures.entries, requests: bursts.requests + failures.requests, fastAnswers: bursts.fastAnswers + failures.fastAnswers, mismatches: [...bursts.mismatches, ...failures.mismatches] };
      });
      it('refuses the same requests with the same 429s', async () => {
        assert.deepEqual(run.mismatches, []);
        const refusals = (await counted(servers.fast)).filter((line) => /^threatgate_http_requests_total\{.*status="429"/.test(line));
        assert.ok(refusals.length >= 2, 'the bursts reached 429 on the lookup API and TAXII');
      });
      it('logs the same lines, counts the same metrics and leaves the same limiter counts', () => assertSameAftermath(servers.fast, servers.plain, run));
    });
  });
}
