// The `json` format (DESIGN 7): an array of objects, an array wrapped in a document, an object of arrays (ThreatFox), or NDJSON.
import { z } from 'zod';
import { readJson } from '../parsers/read-json.js';
import { openFeedBody } from '../transports/feed-body-transport.js';
import { attributeOptions } from './attribute-options.js';
import type { FormatEntry } from './format-entry.js';
import { riskMap } from './risk-from.js';
import { dottedPath, missingFor, sourceSchema } from './source-fields.js';

/** `json.items` for a document whose every top-level value holds records (ThreatFox's export: `{"ID": [{...}], ...}`). */
export const EVERY_TOP_LEVEL_VALUE = '*';

const jsonOptions = z.strictObject({
  value: z.string({ error: missingFor('json') }).pipe(dottedPath),
  type: dottedPath.optional(),
  threat: dottedPath.optional(),
  risk: dottedPath.optional(),
  /** A numeric field read as a risk by thresholds (issue 33): `{"field": "confidence_level", "map": {"90": "high", ...}}`. */
  riskFrom: z.strictObject({ field: dottedPath, map: riskMap }).optional(),
  lastSeen: dottedPath.optional(),
  /** Attribute name to dotted path (issue 33): `{"port": "port", "tags": {"field": "tags", "split": ","}}`. */
  attributes: attributeOptions('field', dottedPath).optional(),
  /** The array's path when the document wraps it (`{"data": [...]}`), or `*` for every top-level value. */
  items: dottedPath.optional(),
  /** With `items: "*"`: the field each record gets its top-level key under, for the other options to name. */
  key: z.string().regex(/^[^.]+$/, 'must be a field name without dots, such as "id"').optional(),
});

const schema = sourceSchema('json', {
  // Absent options are read as empty ones, so the message names json.value, the field to give.
  json: z.preprocess((options) => options ?? {}, jsonOptions),
}).superRefine(({ json }, ctx) => {
  if (json.risk !== undefined && json.riskFrom !== undefined) ctx.addIssue({ code: 'custom', path: ['json', 'riskFrom'], message: 'give json.risk (a field of risk names) or json.riskFrom (a field of scores), not both' });
  if (json.key !== undefined && json.items !== EVERY_TOP_LEVEL_VALUE) ctx.addIssue({ code: 'custom', path: ['json', 'key'], message: 'only with json.items "*": the key is that of the top-level value a record is in' });
});
export type JsonOptions = z.output<typeof jsonOptions>;

export const jsonFormat: FormatEntry<typeof schema> = {
  schema,
  incremental: false,
  paged: false,
  open: (source, context) => openFeedBody(source, 'json', context, (body) => readJson(body, source.json)),
};
