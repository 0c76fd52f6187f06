// The `csv` format: RFC 4180 rows, the columns named by a header row, a `#` comment line or the source.
import { z } from 'zod';
import { readCsv } from '../parsers/read-csv.js';
import { openFeedBody } from '../transports/feed-body-transport.js';
import { CSV_COLUMNS, csvOptions } from './csv-options.js';
import type { FormatEntry } from './format-entry.js';
import { sourceSchema } from './source-fields.js';

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
  for (const column of CSV_COLUMNS) {
    const name = csv[column];
    if (name !== undefined) check(name, [column]);
  }
  if (csv.riskFrom !== undefined) check(csv.riskFrom.column, ['riskFrom', 'column']);
  for (const [name, { from }] of Object.entries(csv.attributes ?? {})) check(from, ['attributes', name]);
});

export const csvFormat: FormatEntry<typeof schema> = {
  schema,
  incremental: false,
  paged: false,
  open: (source, context) => openFeedBody(source, 'csv', context, (body) => readCsv(body, source.csv)),
};
