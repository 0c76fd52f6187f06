// The text of an export, a page of rows at a time: what GET /export/... streams and `threatgate export` writes.
import type { CollectionConfig } from '../config.js';
import type { Store } from '../store/store.js';
import { CSV_HEADER, renderRows, type ExportOptions } from './export-format.js';

/**
 * The export of `collection` as chunks of text, one per store page, the CSV header in front of the
 * first. Nothing is yielded before the first page is read, so that a store that cannot be reached
 * fails the request before its headers go out. Memory holds one page, whatever the list's length.
 */
export async function* exportChunks(store: Store, collection: CollectionConfig, options: ExportOptions, pageSize?: number): AsyncGenerator<string> {
  let header = options.format === 'csv' ? CSV_HEADER : '';
  const pages = store.exportIndicators({ filter: collection.filter, types: options.types, withThreats: options.format === 'csv', pageSize });
  for await (const page of pages) {
    const text = header + renderRows(page, options);
    header = '';
    if (text.length > 0) yield text;
  }
  if (header.length > 0) yield header;
}
