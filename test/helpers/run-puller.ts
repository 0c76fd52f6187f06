// A puller run once over a test's store, as serve's pull thread runs when a "Pull now" wakes it: every due feed is pulled.
import type { Clock } from '../../src/clock.js';
import type { Config } from '../../src/config.js';
import type { Logger } from '../../src/logger.js';
import { createAllowlist } from '../../src/sources/allowlist.js';
import { pullDueFeed } from '../../src/sources/due-pull.js';
import { LEASE_MS, RENEW_MS } from '../../src/sources/pull-lease.js';
import { startPullScheduler } from '../../src/sources/pull-scheduler.js';
import type { Store } from '../../src/store/contract/store.js';

export interface PullerWorld {
  store: Store;
  clock: Clock;
  config: Config;
  logger: Logger;
  env: Readonly<Record<string, string | undefined>>;
}

/** Starts a scheduler, waits for the pulls its check started (and the checks after them), and stops it. */
export async function runPullerOnce(world: PullerWorld): Promise<void> {
  const { store, clock, config, logger, env } = world;
  const puller = startPullScheduler({
    store, clock, env, logger, allowlist: createAllowlist(config.allowlist), allowPrivateNetworks: config.sources.allowPrivateNetworks, checkMs: 3_600_000,
  });
  await puller.tick();
  await puller.stop();
}

/** The puller's pull of one feed, as its check makes it when the feed is due (the other due feeds left alone); false when not taken. */
export function pullFeedAsPuller(world: PullerWorld, fid: number): Promise<boolean> {
  const { store, clock, config, logger, env } = world;
  return pullDueFeed(fid, {
    store, clock, env, logger, allowlist: createAllowlist(config.allowlist), allowPrivateNetworks: config.sources.allowPrivateNetworks,
    owner: 'test puller', leaseMs: LEASE_MS, renewMs: RENEW_MS, signal: new AbortController().signal,
  });
}
