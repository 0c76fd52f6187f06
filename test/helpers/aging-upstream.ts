// An upstream threatgate whose indicators come from a pull of its own (a text list on a feed server), so that its
// lifecycle ages out what the list stops listing (docs/interface.md section 3): the retirement a mirror of it must honour (docs/interface.md section 10, "Withdrawn values").
import { addFeedSource } from '../../src/cli/add-feed-source.js';
import type { Clock } from '../../src/clock.js';
import { createLogger } from '../../src/logger.js';
import { runLifecycle } from '../../src/lifecycle/run-lifecycle.js';
import { createAllowlist } from '../../src/sources/allowlist.js';
import { pullFeed } from '../../src/sources/pull-feed.js';
import { startFeedServer, type FeedServer } from './feed-server.js';
import type { ManualClock } from './pull-harness.js';
import type { Backend } from './store-backends.js';
import { startUpstream, type UpstreamThreatgate } from './upstream-threatgate.js';

const DAY = 86_400_000;
const LIST_PATH = '/upstream-list.txt';

export interface AgingUpstream {
  readonly upstream: UpstreamThreatgate;
  /** The upstream feed the list fills: what a lookup-api mirror names as its `fid`. */
  readonly fid: number;
  /** Publishes the list with these values and has the upstream pull it; throws when the pull fails. */
  list(values: readonly string[]): Promise<void>;
  /** Moves the upstream's clock past its indicatorRetireDays and runs its lifecycle: what the list no longer lists ages out. */
  ageOut(): Promise<number>;
  /** Moves `clock` (a downstream's) up to the upstream's time, so the upstream's expiries are past for it too. */
  catchUp(clock: ManualClock): void;
  close(): Promise<void>;
}

/** An upstream (links pages of 1000) whose feed `Upstream list` lists `values` at risk high, pulled once. */
export async function startAgingUpstream(backend: Backend, values: readonly string[]): Promise<AgingUpstream> {
  const upstream = await startUpstream(backend, {}, { linksPageSize: 1000 });
  let server: FeedServer | undefined;
  try {
    server = await startFeedServer();
    const feeds = server;
    const clock: Clock = upstream.clock;
    const fid = await addFeedSource(upstream.store, { feed: 'Upstream list', organization: 'Upstream Labs', source: { url: `${feeds.base}${LIST_PATH}`, format: 'text', risk: 'high' } }, clock, {});
    const deps = { store: upstream.store, clock, env: {}, allowlist: createAllowlist(undefined), logger: createLogger('warn', () => {}) };
    const aging: AgingUpstream = {
      upstream,
      fid,
      async list(listed) {
        feeds.publish(LIST_PATH, `${listed.join('\n')}\n`);
        upstream.clock.advance(60_000);
        const outcome = await pullFeed(fid, deps);
        if (!outcome.ok) throw new Error(`the upstream's own pull failed: ${outcome.reason}`);
      },
      async ageOut() {
        const days = upstream.config.lifecycle.indicatorRetireDays;
        upstream.clock.advance(((typeof days === 'number' ? days : (days.default ?? 30)) + 1) * DAY);
        return (await runLifecycle(upstream.store, upstream.config.lifecycle, upstream.clock)).agedIndicators;
      },
      catchUp(downstream) {
        downstream.advance(Math.max(0, upstream.clock.now() - downstream.now()));
      },
      async close() {
        await feeds.close();
        await upstream.close();
      },
    };
    await aging.list(values);
    return aging;
  } catch (error) {
    await server?.close();
    await upstream.close();
    throw error;
  }
}
