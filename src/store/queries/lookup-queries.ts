// Read queries of the lookup API: threats, feeds and pages of linked indicators, each on an index.
import type { Kysely } from 'kysely';
import type { Risk } from '../../domain.js';
import type { FeedRecord, LinkedIndicator, LinkOwner, LinksPage, RelatedThreat, ThreatRecord } from '../contract/records.js';
import type { Database } from '../db/schema.js';
import { toFeedRecord, toThreatRecord } from '../db/record-rows.js';

export async function findThreat(db: Kysely<Database>, tid: number): Promise<ThreatRecord | undefined> {
  const row = await db.selectFrom('threats').selectAll().where('tid', '=', tid).executeTakeFirst();
  return row && toThreatRecord(row);
}

/** By name or other name, case-insensitively; the lowest tid wins when several threats share a name. */
export async function findThreatByName(db: Kysely<Database>, name: string): Promise<ThreatRecord | undefined> {
  const row = await db
    .selectFrom('threat_names as n')
    .innerJoin('threats as t', 't.tid', 'n.tid')
    .selectAll('t')
    .where('n.name_key', '=', name.toLowerCase())
    .orderBy('t.tid')
    .limit(1)
    .executeTakeFirst();
  return row && toThreatRecord(row);
}

export async function findRelatedThreats(db: Kysely<Database>, tids: readonly number[]): Promise<RelatedThreat[]> {
  if (tids.length === 0) return [];
  const rows = await db
    .selectFrom('threats')
    .select(['tid', 'name', 'category', 'risk', 'stamp_updated'])
    .where('tid', 'in', [...tids])
    .execute();
  const byTid = new Map(rows.map((r) => [Number(r.tid), r]));
  // Keep the order the threat lists them in; ids of threats not (yet) in the store are left out.
  return tids.flatMap((tid) => {
    const r = byTid.get(tid);
    return r ? [{ tid, name: r.name, category: r.category, risk: r.risk as Risk, stamp_updated: r.stamp_updated }] : [];
  });
}

export async function findFeed(db: Kysely<Database>, fid: number): Promise<FeedRecord | undefined> {
  const row = await db.selectFrom('feeds').selectAll().where('fid', '=', fid).executeTakeFirst();
  return row && toFeedRecord(row);
}

/** Name and organization both match, case-insensitively. */
export async function findFeedByName(db: Kysely<Database>, feed: string, organization: string): Promise<FeedRecord | undefined> {
  const row = await db
    .selectFrom('feeds')
    .selectAll()
    .where('name_key', '=', feed.toLowerCase())
    .where('organization_key', '=', organization.toLowerCase())
    .orderBy('fid')
    .limit(1)
    .executeTakeFirst();
  return row && toFeedRecord(row);
}

async function ownerExists(db: Kysely<Database>, owner: LinkOwner): Promise<boolean> {
  const row =
    owner.kind === 'feed'
      ? await db.selectFrom('feeds').select('fid').where('fid', '=', owner.fid).executeTakeFirst()
      : await db.selectFrom('threats').select('tid').where('tid', '=', owner.tid).executeTakeFirst();
  return row !== undefined;
}

/**
 * Page `page` of an owner's links, ordered by iid: the seq range [page*size, (page+1)*size], one
 * row more than the page to learn whether another page follows. O(log n + size) whatever the page.
 */
export async function findLinksPage(db: Kysely<Database>, owner: LinkOwner, page: number, size: number): Promise<LinksPage> {
  if (!(await ownerExists(db, owner))) return { rows: [], more: false, found: false };
  const from = page * size;
  const base =
    owner.kind === 'feed'
      ? db.selectFrom('feed_links as l').where('l.fid', '=', owner.fid)
      : db.selectFrom('threat_links as l').where('l.tid', '=', owner.tid);
  const rows = await base
    .innerJoin('indicators as i', 'i.iid', 'l.iid')
    .select(['i.iid', 'i.value', 'i.type', 'i.risk', 'l.stamp_linked', 'i.properties'])
    .where('l.seq', '>=', from)
    .where('l.seq', '<=', from + size)
    .orderBy('l.seq')
    .execute();
  const page_rows: LinkedIndicator[] = rows.slice(0, size).map((r) => ({
    iid: Number(r.iid),
    indicator: r.value,
    type: r.type,
    risk: r.risk as Risk,
    stamp_linked: r.stamp_linked,
    properties: JSON.parse(r.properties),
  }));
  return { rows: page_rows, more: rows.length > size, found: true };
}
