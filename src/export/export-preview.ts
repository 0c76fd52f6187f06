// A list as the console's Exports page shows it before a firewall is pointed at it: its counts, its first lines and its URL.
import type { CollectionConfig } from '../config.js';
import type { Store } from '../store/contract/store.js';
import { exportCounts, exportRows } from './export-chunks.js';
import { renderRows, type ExportOptions } from './export-format.js';

export interface ExportPreview {
  /** The lines the list has without `max`. */
  total: number;
  /** The lines the list has with `max`. */
  kept: number;
  /** The lines `max` leaves out. */
  omitted: number;
  /** The list's first lines (records, without the CSV header), as the export writes them, line end left off. */
  firstLines: string[];
  /** The path and query a firewall is given, without a key: the key goes in Basic `taxii2:KEY` or `?key=`. */
  url: string;
}

/**
 * The export's own count, choice and formatting, read as far as the first lines. The kept lines'
 * first ones are the first of the whole choice (the order is total), so only that many are chosen.
 */
export async function exportPreview(store: Store, collection: CollectionConfig, options: ExportOptions, firstLines = 20): Promise<ExportPreview> {
  const counts = await exportCounts(store, collection, options);
  const lines: string[] = [];
  if (firstLines > 0) {
    const head = { ...options, max: options.max === undefined ? undefined : Math.min(options.max, firstLines) };
    for await (const page of exportRows(store, collection, head, firstLines)) {
      for (const row of page) {
        const text = renderRows([row], options);
        if (text.length > 0 && lines.length < firstLines) lines.push(text.replace(/\r?\n$/, ''));
      }
      if (lines.length >= firstLines) break;
    }
  }
  return { ...counts, firstLines: lines, url: exportPath(collection, options) };
}

/** The list's path, with each option the list was read with; commas stay as they are, as a firewall's URL field shows them. */
export function exportPath(collection: CollectionConfig, options: ExportOptions): string {
  const query: string[] = [];
  if (options.types !== undefined) query.push(`type=${options.types.map(encodeURIComponent).join(',')}`);
  if (options.style !== undefined) query.push(`style=${encodeURIComponent(options.style)}`);
  if (options.max !== undefined) query.push(`max=${options.max}`);
  return `/export/${encodeURIComponent(collection.id)}.${options.format}${query.length > 0 ? `?${query.join('&')}` : ''}`;
}
