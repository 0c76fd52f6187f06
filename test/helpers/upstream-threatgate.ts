// A second threatgate for mirror tests: the real app over its own store on the same backend, listening on an
// ephemeral port behind a small handler that logs every request (with the status and TAXII date it answered)
// and can fail chosen requests, so a test can see what a downstream pull asked for and break a walk midway.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { createApp } from '../../src/app.js';
import { createKey } from '../../src/cli/keys-command.js';
import { deepMerge, loadConfig, type Config } from '../../src/config.js';
import type { Feed, Indicator, Link, Threat } from '../../src/domain.js';
import { createLogger } from '../../src/logger.js';
import { importDataset } from '../../src/import/import-file.js';
import type { Store } from '../../src/store/contract/store.js';
import { manualClock, type ManualClock } from './pull-harness.js';
import type { Backend } from './store-backends.js';
import { GENEROUS_PLANS, TEST_NEXT_SECRET } from './test-app.js';

export interface UpstreamRequest {
  path: string;
  /** The query, `key` left out (a lookup-api key travels there). */
  query: URLSearchParams;
  status: number;
  /** The X-TAXII-Date-Added-Last the answer carried, if any. */
  dateAddedLast: string | undefined;
}

export interface UpstreamData {
  threats?: Threat[];
  feeds?: Feed[];
  indicators?: Indicator[];
  links?: Link[];
}

export interface UpstreamThreatgate {
  /** `http://127.0.0.1:PORT` */
  readonly base: string;
  readonly app: Express;
  readonly store: Store;
  readonly config: Config;
  readonly clock: ManualClock;
  /** A key of the pro plan: TAXII `all`, two pages of links per request. */
  readonly proKey: string;
  readonly requests: UpstreamRequest[];
  /** Answers a request with this status instead of the app when it returns one. */
  failWhen: ((path: string, query: URLSearchParams) => number | undefined) | undefined;
  /** Imports records through the real pipeline, the clock moved on a minute first. */
  load(data: UpstreamData): Promise<void>;
  close(): Promise<void>;
}

/**
 * Upstream defaults: links pages of 5 (so a feed of a dozen links has three pages) and TAXII pages of
 * at most 3 objects (so every walk follows `next`); rate limits out of the way.
 */
export const UPSTREAM_OVERRIDES = deepMerge(GENEROUS_PLANS, { linksPageSize: 5, taxii: { defaultLimit: 3, maxLimit: 3 }, cache: { versionCheckMs: 0 } });

export async function startUpstream(backend: Backend, data: UpstreamData = {}, overrides: unknown = {}): Promise<UpstreamThreatgate> {
  const config = loadConfig({ overrides: deepMerge(UPSTREAM_OVERRIDES, overrides) });
  const { store } = await backend.create({ collections: config.collections });
  const clock = manualClock(Date.parse('2026-02-01T09:00:00Z'));
  const logger = createLogger('warn', () => {});
  const app = createApp(config, { store, clock, logger, nextTokenSecret: TEST_NEXT_SECRET });
  const { key } = await createKey(store, config, clock, 'pro', 'downstream mirror');
  const requests: UpstreamRequest[] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const query = new URLSearchParams(url.searchParams);
    query.delete('key');
    const logged: UpstreamRequest = { path: url.pathname, query, status: 0, dateAddedLast: undefined };
    requests.push(logged);
    const failure = upstream.failWhen?.(url.pathname, url.searchParams);
    if (failure !== undefined) {
      logged.status = failure;
      res.writeHead(failure, { 'content-type': 'text/plain' }).end('upstream failure (test)');
      return;
    }
    res.once('finish', () => {
      logged.status = res.statusCode;
      const last = res.getHeader('x-taxii-date-added-last');
      logged.dateAddedLast = typeof last === 'string' ? last : undefined;
    });
    app(req, res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const upstream: UpstreamThreatgate = {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    app,
    store,
    config,
    clock,
    proKey: key,
    requests,
    failWhen: undefined,
    async load(more) {
      clock.advance(60_000);
      await importDataset(store, { threats: more.threats ?? [], feeds: more.feeds ?? [], indicators: more.indicators ?? [], links: more.links ?? [] }, clock);
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await store.close();
    },
  };
  if (Object.values(data).some((list) => list.length > 0)) await upstream.load(data);
  return upstream;
}

/** Records for `load` (or any import) with every field given; stamps a few weeks before the clocks start. */
const STAMP = '2026-01-10 00:00:00';

export function threatRecord(tid: number, name: string, category: string, othernames: string[] = []): Threat {
  return {
    tid, threat: name, category, risk: 'high', othernames, description: `${name}, a test threat`, notes: null, wikisummary: null, wikireference: null,
    retired: false, stamp_added: STAMP, stamp_updated: STAMP, stamp_seen: STAMP, stamp_retired: null, attributes: {}, ttps: [], news: [], comments: [], related: [],
  };
}

export function feedRecord(fid: number, name: string, fields: Partial<Feed> = {}): Feed {
  return {
    fid, feed: name, organization: 'Upstream Labs', category: 'malware', pricing: 'free', contact: { name: 'Intel desk', email: 'intel@upstream.example', phone: '+1 555 0199' },
    website: 'https://upstream.example/feeds', schedule: 'hourly', stamp_added: STAMP, stamp_updated: STAMP, stamp_pulled: STAMP, stamp_modified: STAMP,
    description: `${name} from Upstream Labs`, accesslink: 'https://upstream.example/feeds/download', ...fields,
  };
}

export function indicatorRecord(iid: number, value: string, type: string, risk: Indicator['risk'] = 'high'): Indicator {
  return { iid, indicator: value, type, risk, stamp_added: STAMP, stamp_updated: STAMP, stamp_seen: STAMP, retired: false, attributes: {}, properties: {} };
}
