// What `threatgate feeds ...` is given (feeds-command.ts and the subcommands it hands on to): the store, the clock and the process's settings and streams.
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { Allowlist } from '../sources/allowlist.js';
import type { FeedHealthSettings } from '../sources/feed-health.js';
import type { Store } from '../store/contract/store.js';

export interface FeedsDeps {
  store: Store;
  clock: Clock;
  env: Readonly<Record<string, string | undefined>>;
  /** Config `health.keepRuns`: the runs each pull keeps of its feed. */
  keepRuns?: number;
  allowlist: Allowlist;
  /** Config `sources.allowPrivateNetworks` (network-policy.ts). */
  allowPrivateNetworks?: boolean;
  logger: Logger;
  out: (line: string) => void;
  /** Where notes that are not results go (stderr); default: `out`. */
  err?: (line: string) => void;
  /** Stops `feeds pull` (SIGTERM, SIGINT): the pull under way is cancelled (it changes nothing) and its lease released. */
  signal?: AbortSignal;
  /** Waits between tries for a lease (tests pass their own). */
  sleep?: (ms: number) => Promise<void>;
  /** Config `health` (quietDays), for `feeds status`. */
  health?: FeedHealthSettings;
  /** stdout is a terminal: `feeds status` and `history` print aligned columns instead of tab-separated ones. */
  terminal?: boolean;
  /**
   * Asks a yes/no question on the terminal (`feeds delete` without `--yes`); undefined when there is
   * no terminal to ask on (feed-delete-command.ts, confirmOnTerminal).
   */
  confirm?: (question: string) => Promise<boolean>;
}
