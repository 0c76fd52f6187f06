// The options of a `json` source, `source.json` (docs/interface.md section 10, "Feed sources"; docs/sources.md, "Feed shapes"): checked here when a source is added, read by the json parser.
import { z } from 'zod';
import { attributeOptions } from './attribute-options.js';
import { riskMap } from './risk-from.js';
import { dottedPath, missingFor } from './source-fields.js';

/** `json.items` for a document whose every top-level value holds records (ThreatFox's export: `{"ID": [{...}], ...}`). */
export const EVERY_TOP_LEVEL_VALUE = '*';

export const jsonOptions = z.strictObject({
  value: z.string({ error: missingFor('json') }).pipe(dottedPath),
  type: dottedPath.optional(),
  threat: dottedPath.optional(),
  risk: dottedPath.optional(),
  /** A numeric field read as a risk by thresholds (docs/sources.md, "Feed shapes"): `{"field": "confidence_level", "map": {"90": "high", ...}}`. */
  riskFrom: z.strictObject({ field: dottedPath, map: riskMap }).optional(),
  lastSeen: dottedPath.optional(),
  /** Attribute name to dotted path (docs/sources.md, "Feed shapes"): `{"port": "port", "tags": {"field": "tags", "split": ","}}`. */
  attributes: attributeOptions('field', dottedPath).optional(),
  /** The array's path when the document wraps it (`{"data": [...]}`), or `*` for every top-level value. */
  items: dottedPath.optional(),
  /** With `items: "*"`: the field each record gets its top-level key under, for the other options to name. */
  key: z.string().regex(/^[^.]+$/, 'must be a field name without dots, such as "id"').optional(),
});
export type JsonOptions = z.output<typeof jsonOptions>;
