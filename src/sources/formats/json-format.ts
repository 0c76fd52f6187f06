// The `json` format: an array of objects, an array wrapped in a document, an object of arrays (ThreatFox), or NDJSON.
import { z } from 'zod';
import { readJson } from '../parsers/read-json.js';
import { openFeedBody } from '../transports/feed-body-transport.js';
import type { FormatEntry } from './format-entry.js';
import { EVERY_TOP_LEVEL_VALUE, jsonOptions } from './json-options.js';
import { sourceSchema } from './source-fields.js';

const schema = sourceSchema('json', {
  // Absent options are read as empty ones, so the message names json.value, the field to give.
  json: z.preprocess((options) => options ?? {}, jsonOptions),
}).superRefine(({ json }, ctx) => {
  if (json.risk !== undefined && json.riskFrom !== undefined) ctx.addIssue({ code: 'custom', path: ['json', 'riskFrom'], message: 'give json.risk (a field of risk names) or json.riskFrom (a field of scores), not both' });
  if (json.key !== undefined && json.items !== EVERY_TOP_LEVEL_VALUE) ctx.addIssue({ code: 'custom', path: ['json', 'key'], message: 'only with json.items "*": the key is that of the top-level value a record is in' });
});

export const jsonFormat: FormatEntry<typeof schema> = {
  schema,
  incremental: false,
  paged: false,
  open: (source, context) => openFeedBody(source, 'json', context, (body) => readJson(body, source.json)),
};
