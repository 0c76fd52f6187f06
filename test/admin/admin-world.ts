// What the operator API tests share: a store on a backend with the app over it, an admin key and a plan key, a fixture feed
// server and feeds whose sources point at it, and requests with the admin key as Basic or Bearer credentials.
import type { Express } from 'express';
import request from 'supertest';
import { createApp } from '../../src/app.js';
import { addFeedSource } from '../../src/cli/add-feed-source.js';
import { createAdminKey, createKey } from '../../src/cli/keys-command.js';
import type { Clock } from '../../src/clock.js';
import { deepMerge, loadConfig, type Config } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { runPullerOnce } from '../helpers/run-puller.js';
import type { Store } from '../../src/store/contract/store.js';
import { startFeedServer, type FeedServer } from '../helpers/feed-server.js';
import type { Backend } from '../helpers/store-backends.js';
import { GENEROUS_PLANS, TEST_NEXT_SECRET } from '../helpers/test-app.js';

export const ADMIN_CLOCK: Clock = { now: () => Date.parse('2026-03-02T08:00:00Z') };

/** The secret a source's `${env:FEED_TOKEN}` reads: sent upstream, never shown. */
export const FEED_SECRET = 'sekrit-4f1d93c2-feed-token';

export function adminBasic(key: string, username = 'admin'): string {
  return `Basic ${Buffer.from(`${username}:${key}`).toString('base64')}`;
}

export interface AdminWorld {
  app: Express;
  store: Store;
  config: Config;
  server: FeedServer;
  adminKey: string;
  adminKeyId: string;
  proKey: string;
  logLines: string[];
  /** A feed whose source lists the fixture blocklist-de.txt. */
  goodFid: number;
  /** A feed whose upstream answers 500 with a body echoing the secret, the secret in its URL and headers. */
  failingFid: number;
  /** How many times the app woke its puller ("Pull now" requests). */
  readonly wakes: number;
  /** Runs a puller over the store once, as serve's pull thread does when woken: every due feed, requested ones first among them. */
  runPuller(): Promise<void>;
  /** An app over the same store with other config overrides (the key cache and failure counts its own). */
  appWith(overrides: unknown): Express;
  /** With the admin key as Basic credentials, another key's, or none (null). */
  get(path: string, key?: string | null): request.Test;
  post(path: string, key?: string | null): request.Test;
  close(): Promise<void>;
}

export async function openAdminWorld(backend: Backend, overrides: unknown = {}): Promise<AdminWorld> {
  const base = { ...GENEROUS_PLANS, cache: { versionCheckMs: 0 }, sources: { allowPrivateNetworks: true } };
  const config = loadConfig({ overrides: deepMerge(base, overrides) });
  const { store } = await backend.create({ collections: config.collections });
  const server = await startFeedServer();
  server.publishFixture('blocklist-de.txt');
  server.publish('/private.txt', '192.0.2.200\n');
  server.fail('/private.txt', { kind: 'status', status: 500, body: `token ${FEED_SECRET} is not valid here` });
  const env = { FEED_TOKEN: FEED_SECRET };
  const organization = 'Admin Tests';
  const goodFid = await addFeedSource(store, { feed: 'Blocklist', organization, source: { url: `${server.base}/blocklist-de.txt`, format: 'text', schedule: 'daily' } }, ADMIN_CLOCK, env);
  const failingFid = await addFeedSource(
    store,
    {
      feed: 'Private list',
      organization,
      source: { url: `${server.base}/private.txt?token=\${env:FEED_TOKEN}`, format: 'text', schedule: 'daily', headers: { Authorization: 'Bearer ${env:FEED_TOKEN}' } },
    },
    ADMIN_CLOCK,
    env,
  );
  const admin = await createAdminKey(store, ADMIN_CLOCK, 'console tests');
  const { key: proKey } = await createKey(store, config, ADMIN_CLOCK, 'pro', 'a plan key');
  const logLines: string[] = [];
  let wakes = 0;
  const logger = createLogger('info', (line) => logLines.push(line));
  const build = (cfg: Config) => createApp(cfg, { store, clock: ADMIN_CLOCK, logger, nextTokenSecret: TEST_NEXT_SECRET, wakePuller: () => wakes++ });
  const app = build(config);
  const withKey = (req: request.Test, key: string | null) => (key === null ? req : req.set('Authorization', adminBasic(key)));
  return {
    app,
    store,
    config,
    server,
    adminKey: admin.key,
    adminKeyId: admin.id,
    proKey,
    logLines,
    goodFid,
    failingFid,
    get wakes() {
      return wakes;
    },
    runPuller: () => runPullerOnce({ store, clock: ADMIN_CLOCK, config, logger, env }),
    appWith: (more) => build(loadConfig({ overrides: deepMerge(deepMerge(base, overrides), more) })),
    get: (path, key = admin.key) => withKey(request(app).get(path), key),
    post: (path, key = admin.key) => withKey(request(app).post(path), key),
    async close() {
      await server.close();
      await store.close();
    },
  };
}
