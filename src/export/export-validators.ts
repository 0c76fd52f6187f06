// The validators of an export (RFC 9110 section 8.8): they follow the store's data version, so a poll that finds it unchanged costs no rendering.
import { createHash } from 'node:crypto';
import type { CollectionConfig } from '../config.js';
import type { ExportOptions } from './export-format.js';

export interface ExportValidators {
  /** Weak: gzip and identity bodies of one list share it (RFC 9110 section 8.8.3). */
  etag: string;
  /** The time of the import that made the data version; undefined for a store never imported into. */
  lastModified: string | undefined;
}

/**
 * `dataVersion` is the store's (Store.dataVersion: `<ms>-<random>` after an import, `empty` before
 * any). The ETag also covers the collection's filter and the list's options: a changed
 * configuration, or another filter, is another list; so is another `max`.
 */
export function exportValidators(dataVersion: string, collection: CollectionConfig, options: ExportOptions): ExportValidators {
  const identity = JSON.stringify([dataVersion, collection.id, collection.filter, options.format, options.types ?? null, options.style ?? null, options.max ?? null]);
  const etag = `W/"${createHash('sha256').update(identity).digest('base64url').slice(0, 27)}"`;
  const ms = /^(\d{1,15})-/.exec(dataVersion)?.[1];
  return { etag, lastModified: ms === undefined ? undefined : new Date(Number(ms)).toUTCString() };
}
