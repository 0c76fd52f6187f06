// The `csv` format (DESIGN 7): RFC 4180 rows, the columns named by a header row, a `#` comment line or the source.
import { z } from 'zod';
import { readCsv } from '../parsers/read-csv.js';
import { openFeedBody } from '../transports/feed-body-transport.js';
import { attributeOptions } from './attribute-options.js';
import type { FormatEntry } from './format-entry.js';
import { riskMap } from './risk-from.js';
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
  /** A numeric column read as a risk by thresholds (issue 33): `{"column": "confidence_level", "map": {"90": "high", ...}}`. */
  riskFrom: z.strictObject({ column: text, map: riskMap }).optional(),
  lastSeen: text.optional(),
  /** Attribute name to column (issue 33): `{"port": "dst_port", "tags": {"column": "tags", "split": ","}}`. */
  attributes: attributeOptions('column', text).optional(),
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
  // Two places for one row's risk would leave a reader to guess which wins.
  if (csv.risk !== undefined && csv.riskFrom !== undefined) ctx.addIssue({ code: 'custom', path: ['csv', 'riskFrom'], message: 'give csv.risk (a column of risk names) or csv.riskFrom (a column of scores), not both' });
  if (!Array.isArray(csv.header)) return;
  const header = csv.header;
  const check = (name: string, path: string[]) => {
    if (!header.includes(name)) ctx.addIssue({ code: 'custom', path: ['csv', ...path], message: `column "${name}" is not in csv.header` });
  };
  for (const column of COLUMNS) {
    const name = csv[column];
    if (name !== undefined) check(name, [column]);
  }
  if (csv.riskFrom !== undefined) check(csv.riskFrom.column, ['riskFrom', 'column']);
  for (const [name, { from }] of Object.entries(csv.attributes ?? {})) check(from, ['attributes', name]);
});
export type CsvOptions = z.output<typeof csvOptions>;

export const csvFormat: FormatEntry<typeof schema> = {
  schema,
  incremental: false,
  paged: false,
  open: (source, context) => openFeedBody(source, 'csv', context, (body) => readCsv(body, source.csv)),
};
