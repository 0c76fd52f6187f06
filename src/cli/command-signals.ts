// A `feeds` command under SIGTERM, SIGINT and an uncaught exception: what it pulls is cancelled or its leases released, never left held.
import type { Logger } from '../logger.js';
import type { Store } from '../store/contract/store.js';
import { commandPullOwner } from './feeds-command.js';

/** Exit codes of a command stopped by a signal, as shells report them (128 + the signal's number). */
const SIGNAL_EXIT: Record<'SIGINT' | 'SIGTERM', number> = { SIGINT: 130, SIGTERM: 143 };

/**
 * Runs a `feeds` command so that it never leaves a pull lease behind: SIGTERM or SIGINT cancels the
 * pull under way (it changes nothing; its lease is released as it ends) and the command exits
 * 128 + the signal; an exception nothing caught releases the leases this process holds before it
 * exits 1. (A kill -9 cannot be caught: its lease lapses after its 5 minutes, docs/sources.md.)
 */
export async function underSignals(store: Store, logger: Logger, err: (line: string) => void, run: (signal: AbortSignal) => Promise<number>): Promise<number> {
  const stop = new AbortController();
  let stoppedBy: keyof typeof SIGNAL_EXIT | undefined;
  const onSignal = (signal: keyof typeof SIGNAL_EXIT) => {
    if (stoppedBy !== undefined) process.exit(SIGNAL_EXIT[signal]);
    stoppedBy = signal;
    err(`threatgate: ${signal}: cancelling; a pull under way changes nothing (a second ${signal} exits at once)`);
    stop.abort();
  };
  const onCrash = (error: unknown) => {
    err(`threatgate: unexpected error: ${error instanceof Error ? error.message : String(error)}`);
    void store
      .releaseLeasesOf(commandPullOwner())
      .catch((failure: unknown) => logger.error('the pull leases could not be released', { error: failure instanceof Error ? failure.message : String(failure) }))
      .finally(() => process.exit(1));
  };
  const onTerm = () => onSignal('SIGTERM');
  const onInt = () => onSignal('SIGINT');
  process.on('SIGTERM', onTerm);
  process.on('SIGINT', onInt);
  process.on('uncaughtException', onCrash);
  try {
    const code = await run(stop.signal);
    return stoppedBy === undefined ? code : SIGNAL_EXIT[stoppedBy];
  } finally {
    process.off('SIGTERM', onTerm);
    process.off('SIGINT', onInt);
    process.off('uncaughtException', onCrash);
  }
}

