// The store both feeds-delete suites start from: two feeds pulled from the fixture server, one to be deleted.
import assert from 'node:assert/strict';
import { addFeedSource } from '../../src/cli/add-feed-source.js';
import { startFeedServer, type FeedServer } from './feed-server.js';
import { openPullWorld, type PullWorld } from './pull-harness.js';
import type { Backend } from './store-backends.js';

export interface FeedDeleteWorld {
  server: FeedServer;
  world: PullWorld;
  /** "Doomed C2 list": a Feodo-shaped csv, risk critical, its threat from the malware column. */
  doomed: number;
  /** "Kept blocklist": a text list sharing some of its values, risk low. */
  kept: number;
}

/** A fixture server and a store on `backend` in which both feeds have been pulled once. */
export async function twoFeedsPulled(backend: Backend): Promise<FeedDeleteWorld> {
  const server = await startFeedServer();
  server.publishFixture('feodo-ipblocklist.csv');
  server.publishFixture('feed-delete-overlap.txt');
  const world = await openPullWorld(backend);
  const add = (feed: string, organization: string, source: unknown) => addFeedSource(world.store, { feed, organization, source }, world.clock, {});
  const doomed = await add('Doomed C2 list', 'Doomed Labs', {
    url: `${server.base}/feodo-ipblocklist.csv`, format: 'csv', csv: { header: 'comment', value: 'dst_ip', threat: 'malware' }, risk: 'critical',
  });
  const kept = await add('Kept blocklist', 'Kept Labs', { url: `${server.base}/feed-delete-overlap.txt`, format: 'text', risk: 'low' });
  assert.equal((await world.pull(doomed)).ok, true);
  assert.equal((await world.pull(kept)).ok, true);
  return { server, world, doomed, kept };
}
