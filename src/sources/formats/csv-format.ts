// The `csv` format (DESIGN 7): RFC 4180 rows, the columns named by a header row, a `#` comment line or the source.
import { z } from 'zod';
import { readCsv } from '../parsers/read-csv.js';
import { openFeedBody } from '../transports/feed-body-transport.js';
import type { FormatEntry } from './format-entry.js';
import { missingFor, sourceSchema, text } from './source-fields.js';

const COLUMNS = ['value', 'type', 'threat', 'risk', 'lastSeen'] as const;

const csvOptions = z.strictObject({
  // `value` first: a csv source without options is told the field it cannot do without.
  value: z.string({ error: missingFor('csv') }).pipe(text),
  /** `first-row`, `comment` (the last `#` line before the data, as abuse.ch writes), or the names. */
  header: z.union([z.enum(['first-row', 'comment']), z.array(text).min(1)], {
    error: (issue) => (issue.input === undefined ? undefined : 'must be "first-row", "comment" or a list of column names'),
  }),
  type: text.optional(),
  threat: text.optional(),
  risk: text.optional(),
  lastSeen: text.optional(),
  /** One character; RFC 4180's comma by default, `;` or a tab for the feeds that use them. */
  delimiter: z
    .string()
    .length(1, 'must be one character')
    .refine((c) => !['"', '\r', '\n'].includes(c), 'must not be a quote or a line break')
    .default(','),
});

const schema = sourceSchema('csv', {
  // Absent options are read as empty ones, so the message names csv.value, the field to give.
  csv: z.preprocess((options) => options ?? {}, csvOptions),
}).superRefine(({ csv }, ctx) => {
  if (!Array.isArray(csv.header)) return;
  for (const column of COLUMNS) {
    const name = csv[column];
    if (name !== undefined && !csv.header.includes(name)) ctx.addIssue({ code: 'custom', path: ['csv', column], message: `column "${name}" is not in csv.header` });
  }
});
export type CsvOptions = z.output<typeof csvOptions>;

export const csvFormat: FormatEntry<typeof schema> = {
  schema,
  incremental: false,
  paged: false,
  open: (source, context) => openFeedBody(source, 'csv', context, (body) => readCsv(body, source.csv)),
};
