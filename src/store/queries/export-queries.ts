// The active indicators of a collection for the plain-text and CSV exports: counted, and read a page at a time.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { viewIndicatorConditions } from '../publish/collection-views.js';
import { RISK_RANKS } from '../contract/commands.js';
import type { Dialect } from '../db/dialect.js';
import { laterStamp, laterStampOf, listingStampsBy, seenStampOf } from '../db/listing-stamps.js';
import type { Database } from '../db/schema.js';
import type { ExportQuery, ExportRow, ExportSelection } from '../contract/records.js';

const DEFAULT_PAGE_SIZE = 5000;

/** The threats of a row without any: one shared list, never added to (addThreatNames replaces it). */
const NO_THREATS: string[] = [];

/**
 * An export's conditions on an indicator `i`. Retired indicators are left out, by either mark
 * (stix/is-retired.ts): the `retired` flag, or the risk `retired` an aged-out one gets (docs/interface.md
 * section 3), so that a firewall stops blocking what no source lists any more. `singleLine` leaves
 * out what a plain-text line cannot hold, so that the count is the lines the list has.
 */
function selectionConditions(selection: ExportSelection, after?: number): RawBuilder<unknown> {
  const { types } = selection;
  const typed = types === undefined ? sql`1 = 1` : types.length === 0 ? sql`1 = 0` : sql`i.type in (${sql.join(types)})`;
  const lines = selection.singleLine === true ? sql`i.value not like ${'%\n%'} and i.value not like ${'%\r%'}` : sql`1 = 1`;
  return sql`(i.retired is null or i.retired = 0) and i.risk <> 'retired' and ${typed} and ${lines} and ${viewIndicatorConditions(selection.filter, after)}`;
}

/** How many indicators the export of `selection` lists. */
export async function countExportIndicators(db: Kysely<Database>, selection: ExportSelection): Promise<number> {
  const { rows } = await sql<{ n: number | string }>`select count(*) as n from indicators i where ${selectionConditions(selection)}`.execute(db);
  return Number(rows[0]?.n ?? 0);
}

/**
 * The pages of an export: every row in ascending iid, or with `max` the rows it keeps, in the
 * order they are chosen. Pages read while an import commits may mix the data before and after it;
 * the response's validators name the earlier version, so the next poll reads the list again.
 */
export function exportIndicatorPages(db: Kysely<Database>, dialect: Dialect, query: ExportQuery): AsyncGenerator<ExportRow[]> {
  return query.max === undefined ? pagesByIid(db, dialect, query) : chosenPages(db, dialect, query, query.max);
}

/**
 * Pages in ascending iid, each read with `iid > last` on the primary key, so that every page costs
 * what it returns and nothing is held between pages: the export's memory does not grow with the
 * collection.
 */
async function* pagesByIid(db: Kysely<Database>, dialect: Dialect, query: ExportQuery): AsyncGenerator<ExportRow[]> {
  const size = query.pageSize ?? DEFAULT_PAGE_SIZE;
  let after = 0;
  const names = new Map<number, string>();
  for (;;) {
    const { rows } = await sql<RowOfPage>`
      select i.iid, i.value, i.type, i.risk, i.stamp_seen from indicators i
      where i.iid > ${after} and ${selectionConditions(query, after)}
      order by i.iid limit ${size}`.execute(db);
    if (rows.length === 0) return;
    const page = asExportRows(rows);
    if (query.withSeen === true) await addListingStamps(db, page);
    if (query.withThreats) await addThreatNames(db, page, names, await linksInRange(db, page));
    yield page;
    if (rows.length < size) return;
    after = page.at(-1)!.iid;
  }
}

/**
 * Risks in the order `max` keeps them (docs/interface.md section 11), highest first: `none` (judged harmless) before
 * `unknown` (never judged), as a feed's risks rank (RISK_RANKS). Constants, written into the SQL.
 */
const RISK_ORDER = sql.raw(`case i.risk ${[...RISK_RANKS].reverse().map((risk, i) => `when '${risk}' then ${i}`).join(' ')} else ${RISK_RANKS.length} end`);

/**
 * Text compared by code point on both stores, as SQLite's binary collation compares it: PostgreSQL's
 * database collation would order values (and so choose among equals) differently.
 */
const byCodePoint = (dialect: Dialect, text: RawBuilder<unknown>) => (dialect === 'postgres' ? sql`${text} collate "C"` : text);

/**
 * The rows `max` keeps: one ordered query with a limit chooses their iids, highest risk first, then
 * latest stamp_seen (none last), then value, then iid, so that the choice is the same on every poll
 * of the same data; then each page's rows are read by primary key and given in that order. The
 * choice holds `max` iids in memory (a number each), never the rows.
 *
 * No index serves this order: stamp_seen is the later of the row's own and its listings' stamps
 * (db/listing-stamps.ts), which every pull of a listing feed moves; the sort reads the collection once.
 */
async function* chosenPages(db: Kysely<Database>, dialect: Dialect, query: ExportQuery, max: number): AsyncGenerator<ExportRow[]> {
  const size = query.pageSize ?? DEFAULT_PAGE_SIZE;
  const { listings, seen } = seenForOrder(dialect, query);
  const { rows: chosen } = await sql<{ iid: number | string }>`
    select i.iid from indicators i ${listings} where ${selectionConditions(query)}
    order by ${RISK_ORDER}, ${byCodePoint(dialect, sql`coalesce(${seen}, '')`)} desc, ${byCodePoint(dialect, sql`i.value`)}, i.iid
    limit ${max}`.execute(db);
  const iids = chosen.map((row) => Number(row.iid));
  const names = new Map<number, string>();
  for (let start = 0; start < iids.length; start += size) {
    const wanted = iids.slice(start, start + size);
    // Still active: an indicator retired since the choice was made is left out, not listed again.
    const { rows } = await sql<RowOfPage>`
      select i.iid, i.value, i.type, i.risk, i.stamp_seen from indicators i
      where i.iid in (${sql.join(wanted)}) and (i.retired is null or i.retired = 0) and i.risk <> 'retired'`.execute(db);
    const byIid = new Map(asExportRows(rows).map((row) => [row.iid, row]));
    const page = wanted.flatMap((iid) => byIid.get(iid) ?? []);
    if (page.length === 0) continue;
    if (query.withSeen === true) await addListingStamps(db, page);
    if (query.withThreats) await addThreatNames(db, page, names, await linksOf(db, wanted));
    yield page;
  }
}

/**
 * Each row's stamp_seen as the API gives it: its own, or the latest stamp of the feeds listing it
 * when later (db/listing-stamps.ts). One statement for the page: the listings in the page's range of
 * iids, read on their iid index, when the page's iids are dense (a page of a whole collection), else
 * those of its iids by list. A probe per row inside the page's query cost several times the page.
 */
async function addListingStamps(db: Kysely<Database>, page: ExportRow[]): Promise<void> {
  let [first, last] = [page[0]!.iid, page[0]!.iid];
  for (const row of page) [first, last] = [Math.min(first, row.iid), Math.max(last, row.iid)];
  const which = last - first < DENSE_SPAN * page.length ? sql`l.iid >= ${first} and l.iid <= ${last}` : sql`l.iid in (${sql.join(page.map((row) => row.iid))})`;
  const { rows } = await listingStampsBy(which).execute(db);
  if (rows.length === 0) return;
  const listed = new Map(rows.map((r) => [Number(r.iid), r.at]));
  for (const row of page) row.stamp_seen = laterStampOf(row.stamp_seen, listed.get(row.iid));
}

/** A page whose iids span at most this many times its rows reads the listings of the whole span. */
const DENSE_SPAN = 4;

/**
 * The stamp_seen `max` orders by (db/listing-stamps.ts), and what it joins for it. A view over the
 * whole store (or its risks and types) on PostgreSQL reads every listing anyway: grouped by iid and
 * merged with the indicators in one pass, they cost less than a probe per row (bench/README.md,
 * "PostgreSQL: seen stamps per feed"). A feed's, a threat's or a sample's view, and SQLite, whose
 * probes cost no round trip, probe the listings of the rows they read.
 */
function seenForOrder(dialect: Dialect, selection: ExportSelection): { listings: RawBuilder<unknown>; seen: RawBuilder<unknown> } {
  const { fid, tid, sample } = selection.filter;
  if (dialect === 'sqlite' || fid !== undefined || tid !== undefined || sample !== undefined) return { listings: sql``, seen: seenStampOf(dialect, 'i') };
  return {
    listings: sql`left join (${listingStampsBy(sql`true`)}) as ls on ls.iid = i.iid`,
    seen: laterStamp(dialect, sql.ref('i.stamp_seen'), sql.ref('ls.at')),
  };
}

/** A row of a page as read: `threats` is absent until the row becomes an ExportRow (asExportRows). */
type RowOfPage = { iid: number | string; value: string; type: string; risk: string; stamp_seen: string | null; threats?: string[] };
type LinkRow = { iid: number | string; tid: number | string };

/** Whether the rows of a page have all become ExportRows. */
function areExportRows(rows: RowOfPage[]): rows is ExportRow[] {
  return rows.every((row) => typeof row.iid === 'number' && row.threats !== undefined);
}

/**
 * The rows become the page's ExportRows in place: at a million rows, a copy of each (and a list for
 * each row's threats, where most have none) was a tenth of a CSV export's time, in allocation and GC.
 */
function asExportRows(rows: RowOfPage[]): ExportRow[] {
  for (const row of rows) {
    row.iid = Number(row.iid);
    row.threats = NO_THREATS;
  }
  if (!areExportRows(rows)) throw new Error('an export page row without its iid or threats');
  return rows;
}

/**
 * The links of a page in ascending iid, read by the page's iid range on the threat_links (iid, tid)
 * index; links of iids in the range but not on the page are skipped. Pages' ranges never overlap,
 * so a whole export reads each link at most once, however sparse a type filter leaves its pages.
 * (An IN list of the page's iids had PostgreSQL scan every link for each page.)
 */
function linksInRange(db: Kysely<Database>, page: ExportRow[]): Promise<LinkRow[]> {
  return db.selectFrom('threat_links').select(['iid', 'tid']).where('iid', '>=', page[0]!.iid).where('iid', '<=', page.at(-1)!.iid).execute();
}

/** Rows per IN list of links: short enough that PostgreSQL looks each one up on the (iid, tid) index. */
const LINK_LOOKUP = 500;

/** The links of chosen iids, which lie anywhere in the table: a range would read nearly every link. */
async function linksOf(db: Kysely<Database>, iids: number[]): Promise<LinkRow[]> {
  const links: LinkRow[] = [];
  for (let i = 0; i < iids.length; i += LINK_LOOKUP) {
    links.push(...(await db.selectFrom('threat_links').select(['iid', 'tid']).where('iid', 'in', iids.slice(i, i + LINK_LOOKUP)).execute()));
  }
  return links;
}

/** Threats are few against links: each name is read once an export, into `names`. */
async function addThreatNames(db: Kysely<Database>, page: ExportRow[], names: Map<number, string>, links: LinkRow[]): Promise<void> {
  const byIid = new Map(page.map((row) => [row.iid, row]));
  const unknown = [...new Set(links.map((link) => Number(link.tid)).filter((tid) => !names.has(tid)))];
  for (let i = 0; i < unknown.length; i += 500) {
    const threats = await db.selectFrom('threats').select(['tid', 'name']).where('tid', 'in', unknown.slice(i, i + 500)).execute();
    for (const threat of threats) names.set(Number(threat.tid), threat.name);
  }
  for (const link of links) {
    const name = names.get(Number(link.tid));
    const row = byIid.get(Number(link.iid));
    if (name === undefined || row === undefined) continue;
    if (row.threats === NO_THREATS) row.threats = [name];
    else row.threats.push(name);
  }
  // Sorted here, by code point: the databases' collations would order names differently.
  for (const row of page) if (row.threats.length > 1) row.threats.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
