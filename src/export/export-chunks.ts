// An export's lines: how many the list has and how many `max` keeps, and its text a page of rows at a time (GET /export/..., `threatgate export`, the console).
import type { CollectionConfig } from '../config.js';
import type { ExportRow, ExportSelection } from '../store/contract/records.js';
import type { Store } from '../store/contract/store.js';
import { CSV_HEADER, renderRows, type ExportOptions } from './export-format.js';

/** The lines of a list: `total` without `max`, `kept` with it, `omitted` the difference (0 without `max`). */
export interface ExportCounts {
  total: number;
  kept: number;
  omitted: number;
}

/** A plain-text list has no line for a value holding a line break: neither counted nor chosen. */
function selectionOf(collection: CollectionConfig, options: ExportOptions): ExportSelection {
  return { filter: collection.filter, types: options.types, singleLine: options.format === 'txt' };
}

/** One count of the list's lines (before `max`), and what `max` then keeps and leaves out. */
export async function exportCounts(store: Store, collection: CollectionConfig, options: ExportOptions): Promise<ExportCounts> {
  const total = await store.countExportIndicators(selectionOf(collection, options));
  const kept = options.max === undefined ? total : Math.min(total, options.max);
  return { total, kept, omitted: total - kept };
}

/** The rows of the list a page at a time: in ascending iid, or with `max` the kept ones in the order they are chosen. */
export function exportRows(store: Store, collection: CollectionConfig, options: ExportOptions, pageSize?: number): AsyncIterable<ExportRow[]> {
  return store.exportIndicators({ ...selectionOf(collection, options), withThreats: options.format === 'csv', withSeen: options.format === 'csv', pageSize, max: options.max });
}

/**
 * The export of `collection` as chunks of text, one per store page, the CSV header in front of the
 * first. Nothing is yielded before the first page is read, so that a store that cannot be reached
 * fails the request before its headers go out. Memory holds one page, whatever the list's length
 * (with `max`, also the ids of the kept rows).
 */
export async function* exportChunks(store: Store, collection: CollectionConfig, options: ExportOptions, pageSize?: number): AsyncGenerator<string> {
  let header = options.format === 'csv' ? CSV_HEADER : '';
  for await (const page of exportRows(store, collection, options, pageSize)) {
    const text = header + renderRows(page, options);
    header = '';
    if (text.length > 0) yield text;
  }
  if (header.length > 0) yield header;
}
