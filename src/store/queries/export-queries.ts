// The active indicators of a collection, a keyset page at a time, for the plain-text and CSV exports.
import { sql, type Kysely } from 'kysely';
import { viewIndicatorConditions } from '../publish/collection-views.js';
import type { Database } from '../db/schema.js';
import type { ExportQuery, ExportRow } from '../contract/records.js';



const DEFAULT_PAGE_SIZE = 5000;

/** The threats of a row without any: one shared list, never added to (addThreatNames replaces it). */
const NO_THREATS: string[] = [];

/**
 * Pages in ascending iid, each read with `iid > last` on the primary key, so that every page costs
 * what it returns and nothing is held between pages: the export's memory does not grow with the
 * collection. Retired indicators are left out, by either mark (stix/is-retired.ts): the `retired`
 * flag, or the risk `retired` an aged-out one gets (DESIGN section 8), so that a firewall stops
 * blocking what no source lists any more. Pages read while an import commits may mix the data
 * before and after it; the response's validators name the earlier version, so the next poll reads
 * the list again.
 */
export async function* exportIndicatorPages(db: Kysely<Database>, query: ExportQuery): AsyncGenerator<ExportRow[]> {
  const size = query.pageSize ?? DEFAULT_PAGE_SIZE;
  const types = query.types === undefined ? sql`1 = 1` : query.types.length === 0 ? sql`1 = 0` : sql`i.type in (${sql.join(query.types)})`;
  let after = 0;
  const names = new Map<number, string>();
  for (;;) {
    const { rows } = await sql<{ iid: number | string; value: string; type: string; risk: string; stamp_seen: string | null }>`
      select i.iid, i.value, i.type, i.risk, i.stamp_seen from indicators i
      where i.iid > ${after} and (i.retired is null or i.retired = 0) and i.risk <> 'retired' and ${types} and ${viewIndicatorConditions(query.filter, after)}
      order by i.iid limit ${size}`.execute(db);
    if (rows.length === 0) return;
    // The rows become the page's ExportRows in place: at a million rows, a copy of each (and a list
    // for each row's threats, where most have none) was a tenth of a CSV export's time, in allocation and GC.
    const page = rows as unknown as ExportRow[];
    for (const row of page) {
      row.iid = Number(row.iid);
      row.threats = NO_THREATS;
    }
    if (query.withThreats) await addThreatNames(db, page, names);
    yield page;
    if (rows.length < size) return;
    after = page.at(-1)!.iid;
  }
}

/**
 * The linked threats' names of one page's rows, read by the page's iid range on the threat_links
 * (iid, tid) index; links of iids in the range but not on the page are skipped. Pages' ranges never
 * overlap, so a whole export reads each link at most once, however sparse a type filter leaves its
 * pages. (An IN list of the page's iids had PostgreSQL scan every link for each page.) Threats are
 * few against links: each name is
 * read once an export, into `names`.
 */
async function addThreatNames(db: Kysely<Database>, page: ExportRow[], names: Map<number, string>): Promise<void> {
  const byIid = new Map(page.map((row) => [row.iid, row]));
  const links = await db
    .selectFrom('threat_links')
    .select(['iid', 'tid'])
    .where('iid', '>=', page[0]!.iid)
    .where('iid', '<=', page.at(-1)!.iid)
    .execute();
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
