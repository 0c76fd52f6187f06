// The linked indicators a threat's console page shows, newest first, read through the lookup API's pages of links (Store.findLinksPage).
import type { LinkedIndicator } from '../store/contract/records.js';
import type { Store } from '../store/contract/store.js';

/** Indicators a page of the threat page lists: as many as a page of Explore, so an operator reads both the same way. */
export const THREAT_LINKS_PAGE_SIZE = 100;

/** The page of newest-first links asked for, and what the pager needs. Pages are numbered from 0 (the newest). */
export interface ThreatLinksWindow {
  rows: LinkedIndicator[];
  page: number;
  /** How many pages the links fill (0 when none is linked). */
  pages: number;
  /** Where the page starts among the links, newest first, from 0. */
  first: number;
  /** How many links the threat has: its `summary.risk.total`. */
  total: number;
}

/**
 * Which positions of the links in ascending iid order (what a page of links holds, docs/lookup-api.md,
 * "Pages of linked indicators") newest-first page `page` covers: [from, to], or undefined past the end.
 */
export function newestFirstRange(total: number, page: number, size: number): { from: number; to: number } | undefined {
  const to = total - 1 - page * size;
  if (to < 0) return undefined;
  return { from: Math.max(0, to - size + 1), to };
}

/**
 * Newest-first page `page` of the threat's links. Indicators get higher iids as they are stored, so
 * the newest are at the end of the ascending pages: the one or two pages of `size` that hold the range
 * are read (each a range scan, whatever its number) and the range is turned round. The count of links
 * is the threat's `summary.risk.total`, which counts every linked indicator once.
 */
export async function readThreatLinks(store: Store, tid: number, total: number, page: number, size = THREAT_LINKS_PAGE_SIZE): Promise<ThreatLinksWindow> {
  const pages = Math.ceil(total / size);
  const range = newestFirstRange(total, page, size);
  if (range === undefined) return { rows: [], page, pages, first: page * size, total };
  const low = Math.floor(range.from / size);
  const high = Math.floor(range.to / size);
  const read = await Promise.all([low, ...(high === low ? [] : [high])].map((n) => store.findLinksPage({ kind: 'threat', tid }, n, size)));
  // Position p of the ascending links is row p - n * size of page n.
  const ascending = read.flatMap((links, i) => links.rows.map((row, r) => ({ row, at: (low + i) * size + r })));
  const rows = ascending.filter(({ at }) => at >= range.from && at <= range.to).map(({ row }) => row).reverse();
  return { rows, page, pages, first: page * size, total };
}
