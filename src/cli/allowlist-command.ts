// `threatgate allowlist list | add ENTRY [--reason TEXT] [--dry-run] | remove ENTRY`
// (docs/console-and-operations.md, "Command line"): the run-time entries in the store, beside the
// config's, which this command shows but never changes.
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { ConfigError, UsageError } from '../errors.js';
import { DEFAULT_ALLOWLIST } from '../sources/allowlist.js';
import { addEntry, allowlistEntry, previewEntry } from '../sources/runtime-allowlist.js';
import type { Store } from '../store/contract/store.js';

/** Who the store records as having added an entry from here. */
export const COMMAND_LINE = 'command line';

/**
 * The columns of `allowlist list`, in order: a contract for scripts, so only ever appended to. So the
 * label of the key that added an entry follows as `added_by_label`, `added_by` keeping the key's id.
 */
const LIST_COLUMNS = ['entry', 'origin', 'added_by', 'added_at', 'reason', 'added_by_label'] as const;

const cell = (value: string | null | undefined): string => (value === null || value === undefined || value === '' ? '-' : value.replace(/[\t\r\n]+/g, ' '));

export interface AllowlistDeps {
  store: Store;
  config: Config;
  clock: Clock;
  out: (line: string) => void;
}

export async function allowlistCommand(
  args: string[],
  flags: { reason?: string | undefined; 'dry-run'?: boolean | undefined },
  deps: AllowlistDeps,
): Promise<void> {
  const [action, target, ...rest] = args;
  const configured = deps.config.allowlist ?? DEFAULT_ALLOWLIST;
  switch (action) {
    case 'list': {
      if (target !== undefined) throw new UsageError(`allowlist list: unexpected argument "${target}"`);
      deps.out(LIST_COLUMNS.join('\t'));
      for (const entry of configured) deps.out([entry, 'config', '-', '-', '-', '-'].map(cell).join('\t'));
      for (const e of await deps.store.listAllowlistEntries()) deps.out([e.entry, 'runtime', e.added_by, e.added_at, e.reason, e.added_by_label].map(cell).join('\t'));
      return;
    }
    case 'add': {
      if (target === undefined || rest.length > 0) throw new UsageError('allowlist add: give one ENTRY');
      const entry = allowlistEntry(target);
      if (configured.includes(entry)) throw new ConfigError(`allowlist add: ${entry} is in the config's allowlist already`);
      if (flags['dry-run'] === true) {
        const preview = await previewEntry(deps.store, entry);
        deps.out(`would retire ${preview.count} indicator${preview.count === 1 ? '' : 's'}`);
        for (const row of preview.sample) deps.out(`${row.iid}\t${row.type}\t${cell(row.value)}`);
        return;
      }
      const added = await addEntry(deps.store, { entry, reason: flags.reason ?? '', addedBy: COMMAND_LINE }, deps.clock);
      if (!added.added) throw new ConfigError(`allowlist add: ${entry} is on the allowlist already`);
      deps.out(`added ${entry}: retired ${added.retired} indicator${added.retired === 1 ? '' : 's'}`);
      return;
    }
    case 'remove': {
      if (target === undefined || rest.length > 0) throw new UsageError('allowlist remove: give one ENTRY');
      const entry = target.trim();
      if (await deps.store.removeAllowlistEntry(entry)) {
        deps.out(`removed ${entry}: the next pulls may list what it kept out`);
        return;
      }
      if (configured.includes(entry)) throw new ConfigError(`allowlist remove: ${entry} is in the config's allowlist; remove it there`);
      throw new ConfigError(`allowlist remove: ${entry} is not on the run-time allowlist`);
    }
    default:
      throw new UsageError('allowlist: expected "list", "add ENTRY [--reason TEXT] [--dry-run]" or "remove ENTRY"');
  }
}
