// Explore's rows as CSV (docs/explore.md, "CSV"): the API's export=csv and the console's CSV link write the same document.
import { csvField } from '../text/csv-field.js';

/** The columns of each mode, in order: the JSON rows' fields; a list of names is joined by `|`. */
export const EXPLORE_CSV_COLUMNS = {
  indicators: ['iid', 'indicator', 'type', 'risk', 'stamp_added', 'stamp_updated', 'stamp_seen', 'stamp_retired', 'threats', 'feeds'],
  threats: ['tid', 'threat', 'category', 'risk', 'othernames', 'stamp_added', 'stamp_seen', 'retired', 'indicators'],
  feeds: ['fid', 'feed', 'organization', 'category', 'pricing', 'stamp_added', 'stamp_pulled', 'indicators'],
} as const;

export type ExploreCsvMode = keyof typeof EXPLORE_CSV_COLUMNS;

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  return csvField(Array.isArray(value) ? value.join('|') : String(value));
}

/** A header line and one line per row, CRLF-terminated (RFC 4180), every cell safe to open in a spreadsheet. */
export function exploreCsv(mode: ExploreCsvMode, rows: readonly object[]): string {
  const columns = EXPLORE_CSV_COLUMNS[mode];
  let text = `${columns.join(',')}\r\n`;
  for (const row of rows) text += `${columns.map((column) => cell((row as Record<string, unknown>)[column])).join(',')}\r\n`;
  return text;
}
