// The exports' parameters and headers as zod schemas (docs/interface.md section 11); the lists themselves are text.
import { z } from 'zod';
import { INDICATOR_TYPES } from '../indicator-types.js';
import { EXPORT_STYLES, MAX_LINES } from './export-format.js';

/** `type`: indicator types, comma-separated, case ignored (export-format.ts parseTypes). */
export const ExportTypes = z.array(z.enum(INDICATOR_TYPES)).min(1);
/** `style` (export-format.ts parseStyle). */
export const ExportStyle = z.enum(EXPORT_STYLES);
/** `max`, a device limit (export-format.ts parseMax). */
export const ExportMax = z.int().min(1).max(MAX_LINES);

/** A weak validator: a hash of the data version, the collection's filter and the list's parameters (RFC 9110 section 8.8.3). */
export const ExportEtag = z.string().regex(new RegExp('^W/"[A-Za-z0-9_-]{27}"$'));
/** An HTTP-date (RFC 9110 section 5.6.7). */
export const HttpDate = z.string().regex(/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
export const LineCount = z.int().min(0);
/** A list's body: one value or one CSV record per line. */
export const ExportList = z.string();
