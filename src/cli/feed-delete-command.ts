// `threatgate feeds delete FID [--yes]`: removes a feed, its links, its source and its history in one
// write of the store (`feed-delete`), after saying what goes and asking on a terminal; the indicators
// only it gave are retired and revoked in STIX (docs/sources.md, "Feed metadata and deleting a feed").
import { hostname } from 'node:os';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { formatStamp } from '../clock.js';
import { ConfigError } from '../errors.js';
import { underPullLease } from '../sources/pull-lease.js';
import { FeedDeleteRefused, type FeedDeleteCounts, type FeedDeletePreview } from '../store/contract/commands.js';
import type { WriteBatch } from '../store/contract/write-batch.js';
import type { FeedsDeps } from './feeds-deps.js';
import { EXIT_BUSY, leaseHolder } from './lease-holder.js';

/** Exit code when no one confirmed the delete and `--yes` was not given: nothing was deleted. */
export const EXIT_UNCONFIRMED = 2;

/**
 * Asks `question` on `output` and reads one line of `input`: true for `y` or `yes` (any case), false
 * for anything else, an empty line, or the end of the input.
 */
export function askYesNo(question: string, input: Readable, output: Writable): Promise<boolean> {
  const lines = createInterface({ input, output, terminal: false });
  return new Promise<boolean>((resolve) => {
    lines.once('close', () => resolve(false));
    lines.question(question, (answer) => {
      resolve(/^\s*y(es)?\s*$/i.test(answer));
      lines.close();
    });
  });
}

/** The confirmation of a terminal: asked on `output`, answered on `input`; undefined when either is not a terminal. */
export function confirmOnTerminal(input: Readable & { isTTY?: boolean }, output: Writable & { isTTY?: boolean }): FeedsDeps['confirm'] {
  if (input.isTTY !== true || output.isTTY !== true) return undefined;
  return (question) => askYesNo(question, input, output);
}

const plural = (n: number, one: string) => `${n} ${n === 1 ? one : `${one}s`}`;

/** What the delete removes, in words; `preview.retired` indicators only it gives. */
export function describeDelete(preview: FeedDeletePreview): string[] {
  return [
    `feed ${preview.fid} ${preview.feed} of ${preview.organization}: ${plural(preview.links, 'link')}, ` +
      `${preview.source ? `its source, ${plural(preview.runs, 'run')} on record` : 'no source'}`,
    `${plural(preview.retired, 'indicator')} only this feed gives: retired (reason feed-deleted), revoked in TAXII`,
  ];
}

async function* noBatches(): AsyncGenerator<WriteBatch> {}

function deletedLine(fid: number, counts: FeedDeleteCounts): string {
  return `deleted feed ${fid} ${counts.feed}: ${plural(counts.links, 'link')}, ${plural(counts.retired, 'indicator')} retired`;
}

/**
 * Shows what goes and, without `--yes`, asks (deps.confirm); with no terminal to ask on, refuses
 * (EXIT_UNCONFIRMED). The write runs under the feed's pull lease when it has a source, so no pull of
 * it runs meanwhile: one that does makes the delete refuse (EXIT_BUSY), naming its holder. An
 * unknown fid is a ConfigError (exit 1). Prints `deleted feed FID NAME: L links, N indicators retired`.
 */
export async function feedDeleteCommand(fid: number, flags: { yes: boolean }, deps: FeedsDeps): Promise<number> {
  const { store, clock } = deps;
  const note = deps.err ?? deps.out;
  const preview = await store.previewFeedDelete(fid);
  if (preview === undefined) throw new ConfigError(`feeds delete: no feed has fid ${fid}`);
  if (!flags.yes) {
    for (const line of describeDelete(preview)) note(line);
    if (deps.confirm === undefined) {
      note('feeds delete: not deleted: give --yes to delete without being asked (stdin is not a terminal to ask on)');
      return EXIT_UNCONFIRMED;
    }
    if (!(await deps.confirm(`Delete feed ${fid} ${preview.feed}? [y/N] `))) {
      note('feeds delete: not deleted');
      return 1;
    }
  }
  const write = (leaseOwner: string | null) =>
    store.applyWrite({ kind: 'feed-delete', plan: { fid, at: formatStamp(clock.now()), leaseOwner } }, noBatches(), clock);
  try {
    if (!preview.source) {
      deps.out(deletedLine(fid, (await write(null)).feedDeleted));
      return 0;
    }
    const owner = `feeds delete on ${hostname()} pid ${process.pid}`;
    const held = await underPullLease(fid, { store, clock, owner, take: 'any' }, () => write(owner));
    if (!held.taken) {
      note(`feeds delete: fid ${fid} is being pulled by ${await leaseHolder(store, fid)}; not deleted, ask again when that pull has finished`);
      return EXIT_BUSY;
    }
    deps.out(deletedLine(fid, held.result.feedDeleted));
    return 0;
  } catch (error) {
    if (error instanceof FeedDeleteRefused) throw new ConfigError(`feeds delete: ${error.message}`, { cause: error });
    throw error;
  }
}
