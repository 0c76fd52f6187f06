// The `json` format (DESIGN 7): an array of objects, an array wrapped in a document, or NDJSON.
import { z } from 'zod';
import { readJson } from '../parsers/read-json.js';
import { openFeedBody } from '../transports/feed-body-transport.js';
import type { FormatEntry } from './format-entry.js';
import { dottedPath, missingFor, sourceSchema } from './source-fields.js';

const jsonOptions = z.strictObject({
  value: z.string({ error: missingFor('json') }).pipe(dottedPath),
  type: dottedPath.optional(),
  threat: dottedPath.optional(),
  risk: dottedPath.optional(),
  lastSeen: dottedPath.optional(),
  /** The array's path when the document wraps it (`{"data": [...]}`). */
  items: dottedPath.optional(),
});

const schema = sourceSchema('json', {
  // Absent options are read as empty ones, so the message names json.value, the field to give.
  json: z.preprocess((options) => options ?? {}, jsonOptions),
});
export type JsonOptions = z.output<typeof jsonOptions>;

export const jsonFormat: FormatEntry<typeof schema> = {
  schema,
  incremental: false,
  paged: false,
  open: (source, context) => openFeedBody(source, 'json', context, (body) => readJson(body, source.json)),
};
