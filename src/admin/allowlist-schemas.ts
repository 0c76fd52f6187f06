// The operator API's allowlist as zod schemas: the list, an entry to add, and what adding one did or would do (docs/interface.md section 13).
import { z } from 'zod';
import { count, recordId, Timestamp } from '../api/lookup-schemas.js';

const ENTRY = 'An address or CIDR block, a domain (it and every name under it), or an exact value.';
const text = (description: string) => z.string().describe(description);

export const Allowlist = z.strictObject({
  entries: z
    .array(
      z.discriminatedUnion('origin', [
        z.strictObject({ entry: text(ENTRY), origin: z.literal('config').describe('From the config\u2019s `allowlist`: changed there, never here.') }),
        z.strictObject({
          entry: text(ENTRY),
          origin: z.literal('runtime').describe('Added at run time (`threatgate allowlist add`, the console or POST /admin/api/allowlist).'),
          added_by: text('Who added it: the admin key\u2019s id, or `command line`.'),
          added_by_label: text('The label of the admin key that added it; null when the key has none, or is not in the store (and for `command line`).').nullable(),
          added_at: Timestamp,
          reason: text('Why, as its author wrote it; null when none was given.').nullable(),
        }),
      ]),
    )
    .describe(
      'The effective allowlist: the config\u2019s `allowlist` (or the built-in default when the config gives none), then the entries added at run time, oldest first.',
    ),
});

/** The body of POST /admin/api/allowlist, as admin-allowlist.ts reads it. */
export const AllowlistAddition = z.strictObject({
  entry: z.string().min(1).max(2048).describe(`${ENTRY} Leading and trailing blanks are dropped.`),
  reason: z.string().max(500).optional().describe('Why, for the next operator; control characters become spaces. Empty when left out.'),
  dryRun: z.boolean().default(false).describe('true: only count and name what adding it would retire, and change nothing.'),
});

export const AllowlistPreview = z
  .strictObject({
    entry: text('The entry as it would be kept.'),
    dryRun: z.literal(true),
    count: count.describe('Stored indicators, not retired yet, that adding it would retire: exactly what applying it retires now.'),
    sample: z.array(z.strictObject({ iid: recordId, value: z.string(), type: z.string() })).max(20).describe('The first of them.'),
  })
  .describe('The dry run of an allowlist entry: nothing was changed.');

export const AllowlistAdded = z
  .strictObject({
    entry: text('The entry as it is kept.'),
    added: z.literal(true),
    retired: count.describe('Stored indicators it retired (risk `retired`, reason `allowlisted`, their STIX indicators expired).'),
  })
  .describe('An allowlist entry added at run time.');
