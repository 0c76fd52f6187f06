// What the console's tests share: a store on a backend, a fixture feed server with a good and a failing source, admin and
// plan keys, a clock the test moves, the app over them, and a browser-like client that signs in through the login form
// and posts forms as a browser would (its own Origin, the session's CSRF token), its cookie kept by hand so a test can replay it.
import assert from 'node:assert/strict';
import type { Express } from 'express';
import request from 'supertest';
import { createApp } from '../../src/app.js';
import { addFeedSource } from '../../src/cli/add-feed-source.js';
import { createAdminKey, createKey } from '../../src/cli/keys-command.js';
import { deepMerge, loadConfig, type Config } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { pullFeedAsPuller } from '../helpers/run-puller.js';
import type { Store } from '../../src/store/contract/store.js';
import { startFeedServer, type FeedServer } from '../helpers/feed-server.js';
import { manualClock, type ManualClock } from '../helpers/pull-harness.js';
import type { Backend } from '../helpers/store-backends.js';
import { GENEROUS_PLANS, TEST_NEXT_SECRET } from '../helpers/test-app.js';

/** The host the tests' requests name, and the origin a browser on it posts from. */
export const HOST = 'console.test';
export const ORIGIN = `http://${HOST}`;

/** The secret a source's `${env:FEED_TOKEN}` reads: sent upstream, never shown. */
export const FEED_SECRET = 'sekrit-77c1a0-console-token';

export interface ConsoleWorld {
  store: Store;
  config: Config;
  clock: ManualClock;
  server: FeedServer;
  env: Record<string, string>;
  adminKey: string;
  adminKeyId: string;
  proKey: string;
  /** Lists the fixture blocklist-de.txt. */
  goodFid: number;
  /** Its upstream answers 500, its URL and header carry `${env:FEED_TOKEN}`. */
  failingFid: number;
  logLines: string[];
  app: Express;
  /** How many times the app woke its puller ("Pull now" requests). */
  readonly wakes: number;
  /** The puller's pull of the feed, as its check makes it when a "Pull now" made the feed due (the world's other feeds left alone). */
  runPuller(fid: number): Promise<boolean>;
  /** Another app over the same store and clock, with more config (its key cache and failure counts its own). */
  appWith(overrides: unknown): Express;
  close(): Promise<void>;
}

export async function openConsoleWorld(backend: Backend): Promise<ConsoleWorld> {
  const base = { ...GENEROUS_PLANS, cache: { versionCheckMs: 0 }, sources: { allowPrivateNetworks: true } };
  const config = loadConfig({ overrides: base });
  const { store } = await backend.create({ collections: config.collections });
  const clock = manualClock();
  const server = await startFeedServer();
  server.publishFixture('blocklist-de.txt');
  server.publish('/private.txt', '192.0.2.200\n');
  server.fail('/private.txt', { kind: 'status', status: 500, body: `token ${FEED_SECRET} is not valid here` });
  const env = { FEED_TOKEN: FEED_SECRET };
  const organization = 'Console Tests';
  const goodFid = await addFeedSource(store, { feed: 'Blocklist', organization, source: { url: `${server.base}/blocklist-de.txt`, format: 'text', schedule: 'daily' } }, clock, env);
  const failingFid = await addFeedSource(
    store,
    { feed: 'Private list', organization, source: { url: `${server.base}/private.txt?token=\${env:FEED_TOKEN}`, format: 'text', schedule: 'daily', headers: { Authorization: 'Bearer ${env:FEED_TOKEN}' } } },
    clock,
    env,
  );
  const admin = await createAdminKey(store, clock, 'console tests');
  const { key: proKey } = await createKey(store, config, clock, 'pro', 'a plan key');
  const logLines: string[] = [];
  let wakes = 0;
  const logger = createLogger('info', (line) => logLines.push(line));
  const build = (cfg: Config) => createApp(cfg, { store, clock, logger, nextTokenSecret: TEST_NEXT_SECRET, wakePuller: () => wakes++ });
  return {
    get wakes() {
      return wakes;
    },
    runPuller: (fid) => pullFeedAsPuller({ store, clock, config, logger, env }, fid),
    store,
    config,
    clock,
    server,
    env,
    adminKey: admin.key,
    adminKeyId: admin.id,
    proKey,
    goodFid,
    failingFid,
    logLines,
    app: build(config),
    appWith: (overrides) => build(loadConfig({ overrides: deepMerge(base, overrides) })),
    async close() {
      await server.close();
      await store.close();
    },
  };
}

/** The `_csrf` value of the first form in a page. */
export function csrfOf(html: string): string {
  return /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? assert.fail('the page has no CSRF field');
}

/** The `tg_console=...` pair of a response's Set-Cookie, if it sets one. */
export function sessionCookieOf(res: request.Response): string | undefined {
  const header = ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((line) => line.startsWith('tg_console='));
  return header?.split(';')[0];
}

/** A browser on ORIGIN: its cookie, GETs and form posts (its Origin, and the session's token unless told otherwise). */
export interface ConsoleClient {
  cookie: string | undefined;
  get(path: string): request.Test;
  /** `csrf` undefined: the token of the feeds page, read first; null: none sent. `origin` null: no Origin header. */
  post(path: string, fields?: Record<string, string>, options?: { csrf?: string | null; origin?: string | null }): Promise<request.Response>;
}

export function consoleClient(app: Express, cookie?: string): ConsoleClient {
  const client: ConsoleClient = {
    cookie,
    get: (path) => {
      const req = request(app).get(path).set('Host', HOST);
      return client.cookie === undefined ? req : req.set('Cookie', client.cookie);
    },
    async post(path, fields = {}, options = {}) {
      const csrf = options.csrf === undefined ? csrfOf((await client.get('/console/').expect(200)).text) : options.csrf;
      let req = request(app).post(path).set('Host', HOST).type('form');
      if (options.origin !== null) req = req.set('Origin', options.origin ?? ORIGIN);
      if (client.cookie !== undefined) req = req.set('Cookie', client.cookie);
      return req.send({ ...fields, ...(csrf === null ? {} : { _csrf: csrf }) });
    },
  };
  return client;
}

/** Signs in through the login form with `key`; the client holds the session cookie. */
export async function signIn(app: Express, key: string): Promise<ConsoleClient> {
  const client = consoleClient(app);
  const res = await client.post('/console/login', { key }, { csrf: null });
  assert.equal(res.status, 303, res.text);
  client.cookie = sessionCookieOf(res) ?? assert.fail('the login set no session cookie');
  return client;
}

/** The text of the element with this id in a page (tags dropped, entities kept as sent). */
export function byId(html: string, id: string): string {
  const start = html.indexOf(` id="${id}"`);
  assert.ok(start !== -1, `no element #${id} in the page`);
  const tag = html.lastIndexOf('<', start);
  const name = /^<([a-z0-9]+)/.exec(html.slice(tag))![1]!;
  // Elements of the same name nest here only as sections; count them to find the matching end tag.
  let depth = 0;
  const pattern = new RegExp(`<(/?)${name}[\\s>]`, 'g');
  pattern.lastIndex = tag;
  for (let m = pattern.exec(html); m !== null; m = pattern.exec(html)) {
    depth += m[1] === '/' ? -1 : 1;
    if (depth === 0) return html.slice(tag, m.index).replace(/<[^>]+>/g, '');
  }
  assert.fail(`#${id} is not closed`);
}
