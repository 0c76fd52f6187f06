// The store both servers of a fast-path test read: the fixture, a key per plan, a revoked and an admin key, and what a third app learns of it.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { createApp } from '../../src/app.js';
import { createAdminKey, createKey } from '../../src/cli/keys-command.js';
import type { Config } from '../../src/config.js';
import { importDataset } from '../../src/import/import-file.js';
import type { Store } from '../../src/store/contract/store.js';
import { buildFixture } from '../helpers/fixture.js';
import { openTestStore } from '../helpers/store-db.js';
import { fixedClock, TEST_NEXT_SECRET } from '../helpers/test-app.js';

export const TEST = '981c4916-ebb2-4567-aece-54ae970c4230';
export const MAIN = 'a5cffbfe-c0ff-4842-a235-cb3a7a040a37';
export const TAXII = 'application/taxii+json;version=2.1';
export const PLANS = ['pro', 'business', 'team', 'custom', 'feed', 'free'] as const;

export interface Keys {
  byPlan: Record<string, { id: string; key: string }>;
  admin: string;
  revoked: string;
  unknown: string;
}

export const basic = (key: string, user = 'taxii2') => `Basic ${Buffer.from(`${user}:${key}`).toString('base64')}`;

export async function openCorpusStore(config: Config): Promise<{ store: Store; dir: string; keys: Keys }> {
  const dir = mkdtempSync(join(tmpdir(), 'threatgate-fastpath-'));
  const store = await openTestStore(join(dir, 'store.sqlite'), { collections: config.collections });
  await importDataset(store, buildFixture(), fixedClock);
  const byPlan: Keys['byPlan'] = {};
  for (const plan of Object.keys(config.plans)) if (plan !== 'anonymous') byPlan[plan] = await createKey(store, config, fixedClock, plan);
  const revoked = await createKey(store, config, fixedClock, 'pro');
  await store.revokeKey({ id: revoked.id }, '2026-01-15 10:00:00');
  const admin = (await createAdminKey(store, fixedClock)).key;
  return { store, dir, keys: { byPlan, admin, revoked: revoked.key, unknown: 'u'.repeat(43) } };
}

/** A `next` token and an object id of the main collection, and an export's ETag, learned from a third app so that neither server counts them. */
export async function learn(store: Store, config: Config, key: string) {
  const scout = createApp(config, { store, clock: fixedClock, nextTokenSecret: TEST_NEXT_SECRET });
  const page = await request(scout).get(`/taxii2/api/collections/${MAIN}/objects/?limit=2`).set({ Accept: TAXII, Authorization: basic(key) }).expect(200);
  const body = JSON.parse(page.text) as { next: string; objects: { id: string }[] };
  const etag = async (path: string) => String((await request(scout).get(path).set({ Authorization: basic(key) }).expect(200)).headers.etag);
  return { next: body.next, objectId: body.objects[0]!.id, etag: await etag(`/export/${TEST}.txt`), csvEtag: await etag('/export/test.csv?max=3'), mainEtag: await etag(`/export/${MAIN}.txt`) };
}

/** Plans with room for the whole corpus (pages and TAXII access as configured), and a limit on failed authentications it stays under. */
export const roomy = (limits: Record<string, number>) =>
  Object.fromEntries(['anonymous', ...PLANS].map((plan) => [plan, { perSecond: 1_000_000, perDay: 1_000_000, perMonth: 1_000_000, ...limits }]));

