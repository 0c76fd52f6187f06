// The servers, keys and feeds the OpenAPI response cases run against, and the helpers the cases share:
// each case is a request and the status it must get, checked against the document by openapi.test.ts.
import type { Express } from 'express';
import request, { type Response, type Test } from 'supertest';
import { createApp } from '../../src/app.js';
import { addFeedSource } from '../../src/cli/add-feed-source.js';
import { createAdminKey } from '../../src/cli/keys-command.js';
import type { Config } from '../../src/config.js';
import type { Store } from '../../src/store/contract/store.js';
import { startFeedServer, type FeedServer } from '../helpers/feed-server.js';
import { createTestContext, fixedClock, GENEROUS_PLANS, TEST_NEXT_SECRET, type TestContext } from '../helpers/test-app.js';
import { basicAuth, collectionPath, INDICATORS_COLLECTION, TAXII_TYPE, TEST_COLLECTION } from '../taxii/taxii-request.js';
import { DocumentChecker, type Method } from './openapi-checker.js';

export const TEST = collectionPath(TEST_COLLECTION);
export const ALL = collectionPath(INDICATORS_COLLECTION);
export const UNKNOWN_COLLECTION = '00000000-0000-4000-8000-000000000000';
export const UNKNOWN_OBJECT = 'indicator--00000000-0000-4000-8000-000000000000';
export const UNKNOWN_KEY = 'A'.repeat(43);
export const FAILURES = 'a valid key from an address past its failed authentications';

/** A store whose key lookups, data version and explore queries fail, as a bug (500) or an outage (503) would. */
function failingStore(store: Store, error: () => Error, methods = ['findKeyByHash', 'dataVersion', 'checkReady', 'explore']): Store {
  return new Proxy(store, {
    get(target, name, receiver) {
      if (typeof name === 'string' && methods.includes(name)) return async () => { throw error(); };
      const value = Reflect.get(target, name, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

const outage = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
const bug = () => new Error('SQLITE_CORRUPT: a detail no client may see');

/** A request and the status it must get. */
export interface Case {
  what: string;
  template: string;
  method: Method;
  status: number;
  send: () => Test | Promise<Response>;
}

/** Its fields are set by `start` (in a `before`); the cases read them only when they run. */
export class OpenApiWorld {
  readonly cases: Case[] = [];
  ctx!: TestContext;
  /** One request a day on every plan: the second is a 429. */
  tight!: TestContext;
  checker!: DocumentChecker;
  objectId!: string;
  broken!: Express;
  down!: Express;
  noTeam!: Express;
  guessing!: Express;
  /** The operator API's world: its own store (pulls change data the other cases read), an admin key, and feeds of a local server. */
  admin!: TestContext;
  feedServer!: FeedServer;
  adminKey!: string;
  pulledFid!: number;
  failingFid!: number;

  async start(): Promise<void> {
    this.ctx = await createTestContext({ overrides: GENEROUS_PLANS });
    const oneADay = Object.fromEntries(Object.keys(GENEROUS_PLANS.plans).map((plan) => [plan, { perSecond: 1000, perDay: 1, perMonth: 1000 }]));
    this.tight = await createTestContext({ overrides: { plans: oneADay } });
    const { ctx } = this;
    this.checker = new DocumentChecker(JSON.parse((await request(ctx.app).get('/openapi.json')).text));
    this.objectId = (await request(ctx.app).get(`${TEST}manifest/?match[type]=indicator&limit=1`).set('Authorization', basicAuth(ctx.keys.pro!)).set('Accept', TAXII_TYPE)).body.objects[0].id;
    this.broken = createApp(ctx.config, { store: failingStore(ctx.store, bug), nextTokenSecret: TEST_NEXT_SECRET });
    this.down = createApp(ctx.config, { store: failingStore(ctx.store, outage), nextTokenSecret: TEST_NEXT_SECRET });
    // A server that no longer offers the Team plan, holding a Team key.
    const { team: _team, ...plans } = ctx.config.plans;
    this.noTeam = createApp({ ...ctx.config, plans } as Config, { store: ctx.store, nextTokenSecret: TEST_NEXT_SECRET });
    // A server that allows one failed authentication a minute per client address.
    this.guessing = createApp({ ...ctx.config, auth: { failuresPerMinute: 1 } } as Config, { store: ctx.store, nextTokenSecret: TEST_NEXT_SECRET });
    // Use up the tight budgets: anonymous, and the Pro key.
    await request(this.tight.app).get('/api/threat.php?tid=1').expect(200);
    await request(this.tight.app).get('/taxii2/').set('Authorization', basicAuth(this.tight.keys.pro!)).set('Accept', TAXII_TYPE).expect(200);

    this.admin = await createTestContext({ overrides: { ...GENEROUS_PLANS, sources: { allowPrivateNetworks: true } } });
    this.adminKey = (await createAdminKey(this.admin.store, fixedClock, 'openapi')).key;
    const feedServer = (this.feedServer = await startFeedServer());
    feedServer.publishFixture('blocklist-de.txt');
    feedServer.publish('/down.txt', '192.0.2.1\n');
    feedServer.fail('/down.txt', { kind: 'status', status: 500 });
    const source = (path: string) => ({ url: `${feedServer.base}${path}`, format: 'text', schedule: 'daily' });
    this.pulledFid = await addFeedSource(this.admin.store, { feed: 'OpenAPI list', organization: 'OpenAPI', source: source('/blocklist-de.txt') }, fixedClock, {});
    this.failingFid = await addFeedSource(this.admin.store, { feed: 'OpenAPI down', organization: 'OpenAPI', source: source('/down.txt') }, fixedClock, {});
  }

  async close(): Promise<void> {
    await this.ctx?.close();
    await this.tight?.close();
    await this.admin?.close();
    await this.feedServer?.close();
  }

  readonly add = (template: string, status: number, what: string, send: Case['send'], method: Method = 'get') => this.cases.push({ template, status, what, send, method });
  /** A GET of the main app, or of the one `app` names. */
  readonly get = (path: string, app?: () => Express) => request((app ?? (() => this.ctx.app))()).get(path);
  readonly taxii = (method: Method, path: string, key: () => string, accept: string | null = TAXII_TYPE, app?: () => Express) => {
    const req = request((app ?? (() => this.ctx.app))())[method](path).set('Authorization', basicAuth(key()));
    return accept === null ? req : req.set('Accept', accept);
  };
  readonly pro = () => this.ctx.keys.pro!;
  readonly free = () => this.ctx.keys.free!;
  /** Sent right after a failed authentication from the same address, on the server that allows one a minute. */
  readonly afterFailure = async (send: () => Test) => {
    await this.get(`/api/threat.php?tid=1&key=${UNKNOWN_KEY}`, () => this.guessing);
    return send();
  };
}
