// The options of a `csv` source, `source.csv` (docs/interface.md section 10, "Feed sources"; docs/sources.md, "Feed shapes"): checked here when a source is added, read by the csv parser.
import { z } from 'zod';
import { attributeOptions } from './attribute-options.js';
import { riskMap } from './risk-from.js';
import { missingFor, text } from './source-fields.js';

/** The options that each name one column, in the order a row's entry is read. */
export const CSV_COLUMNS = ['value', 'type', 'threat', 'risk', 'lastSeen'] as const;

export const csvOptions = z.strictObject({
  // `value` first: a csv source without options is told the field it cannot do without.
  value: z.string({ error: missingFor('csv') }).pipe(text),
  /** `first-row`, `comment` (the last `#` line before the data, as abuse.ch writes), or the names. */
  header: z.union([z.enum(['first-row', 'comment']), z.array(text).min(1)], {
    error: (issue) => (issue.input === undefined ? undefined : 'must be "first-row", "comment" or a list of column names'),
  }),
  type: text.optional(),
  threat: text.optional(),
  risk: text.optional(),
  /** A numeric column read as a risk by thresholds (docs/sources.md, "Feed shapes"): `{"column": "confidence_level", "map": {"90": "high", ...}}`. */
  riskFrom: z.strictObject({ column: text, map: riskMap }).optional(),
  lastSeen: text.optional(),
  /** Attribute name to column (docs/sources.md, "Feed shapes"): `{"port": "dst_port", "tags": {"column": "tags", "split": ","}}`. */
  attributes: attributeOptions('column', text).optional(),
  /** One character; RFC 4180's comma by default, `;` or a tab for the feeds that use them. */
  delimiter: z
    .string()
    .length(1, 'must be one character')
    .refine((c) => !['"', '\r', '\n'].includes(c), 'must not be a quote or a line break')
    .default(','),
});
export type CsvOptions = z.output<typeof csvOptions>;
