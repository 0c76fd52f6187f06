// The run-time allowlist as the operator API and the console change it (docs/interface.md sections 13 and 14): the same entries, checks and
// write as `threatgate allowlist`, with each refusal an HTTP error that names the entry.
import type { Clock } from '../clock.js';
import { BadRequestError, ConflictError, NotFoundError, UsageError } from '../errors.js';
import { DEFAULT_ALLOWLIST } from '../sources/allowlist.js';
import { addEntry, allowlistEntry, previewEntry } from '../sources/runtime-allowlist.js';
import type { AllowlistPreview } from '../store/contract/records.js';
import type { Store } from '../store/contract/store.js';

/**
 * An entry as the operator sees it: the config's (read-only here) or one added at run time, with who
 * (the admin key's id, or `command line`, and the key's label, null when it has none or is gone), when and why.
 */
export type ListedEntry =
  | { entry: string; origin: 'config' }
  | { entry: string; origin: 'runtime'; added_by: string; added_by_label: string | null; added_at: string; reason: string | null };

/** Who added a run-time entry, as the console and the command line show it: the key's label, else its id (or `command line`). */
export function addedByText(entry: { added_by: string; added_by_label: string | null }): string {
  return entry.added_by_label ?? entry.added_by;
}

/** The longest reason kept: a sentence or two for the next operator, not a document. */
export const MAX_REASON = 500;

export interface OperatorAllowlistDeps {
  store: Store;
  clock: Clock;
  /** Config `allowlist`; absent: the built-in default, as pulls apply it. */
  configured: readonly string[] | undefined;
}

export interface OperatorAllowlist {
  /** The config's entries, then the run-time ones oldest first. */
  list(): Promise<ListedEntry[]>;
  /** The checked entry and what adding it would retire now; a bad entry is a 400, one already there a 409. */
  preview(text: string): Promise<{ entry: string } & AllowlistPreview>;
  /** Adds the entry and retires what it covers; a 400 or 409 as for the preview. */
  add(input: { entry: string; reason: string; addedBy: string }): Promise<{ entry: string; retired: number }>;
  /** Removes a run-time entry; a config entry is a 409 naming the config, anything else a 404. */
  remove(text: string): Promise<void>;
}

/** The entry as it is kept, or a 400 whose message names it (the checks `threatgate allowlist add` makes). */
export function checkedEntry(text: string): string {
  try {
    return allowlistEntry(text);
  } catch (error) {
    if (error instanceof UsageError) throw new BadRequestError(entryMessage(error.message));
    throw error;
  }
}

/** The command line's wording, for a field of a request: `allowlist: entry "X": why` becomes `Entry "X": why.` */
function entryMessage(message: string): string {
  const text = message.replace(/^allowlist: /, '');
  if (text.startsWith('give an ENTRY')) return 'An entry is required: an address, a CIDR block, a domain, or an exact value.';
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

/** The reason as kept: trimmed, each run of control characters a space (a reason is shown on one line), at most MAX_REASON characters. */
export function checkedReason(text: string): string {
  const reason = text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').trim();
  if (reason.length > MAX_REASON) throw new BadRequestError(`The reason is at most ${MAX_REASON} characters.`);
  return reason;
}

export function createOperatorAllowlist(deps: OperatorAllowlistDeps): OperatorAllowlist {
  const { store, clock } = deps;
  const configured = deps.configured ?? DEFAULT_ALLOWLIST;
  const inConfig = (entry: string) => new ConflictError(`${entry} is in the config's allowlist already.`);
  const present = (entry: string) => new ConflictError(`${entry} is on the run-time allowlist already.`);

  /** A checked entry that is on neither list yet. */
  async function newEntry(text: string): Promise<string> {
    const entry = checkedEntry(text);
    if (configured.includes(entry)) throw inConfig(entry);
    if ((await store.listAllowlistEntries()).some((e) => e.entry === entry)) throw present(entry);
    return entry;
  }

  return {
    async list() {
      const runtime = await store.listAllowlistEntries();
      return [
        ...configured.map((entry): ListedEntry => ({ entry, origin: 'config' })),
        ...runtime.map(
          (e): ListedEntry => ({ entry: e.entry, origin: 'runtime', added_by: e.added_by, added_by_label: e.added_by_label, added_at: e.added_at, reason: e.reason === '' ? null : e.reason }),
        ),
      ];
    },
    async preview(text) {
      const entry = await newEntry(text);
      return { entry, ...(await previewEntry(store, entry)) };
    },
    async add(input) {
      const entry = await newEntry(input.entry);
      const added = await addEntry(store, { entry, reason: checkedReason(input.reason), addedBy: input.addedBy }, clock);
      // Another operator may have added it between the check and the write: the store keeps one.
      if (!added.added) throw present(entry);
      return { entry, retired: added.retired };
    },
    async remove(text) {
      const entry = text.trim();
      if (await store.removeAllowlistEntry(entry)) return;
      if (configured.includes(entry)) throw new ConflictError(`${entry} is in the config's allowlist; remove it there (setting "allowlist").`);
      throw new NotFoundError(`${entry} is not on the run-time allowlist.`);
    },
  };
}
