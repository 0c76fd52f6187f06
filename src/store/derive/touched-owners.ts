// Which feeds' and threats' aggregates an import can have changed, read from its change set
// (changes/change-set.ts): the rest of the store keeps its stored aggregates as they are.
import { sql, type RawBuilder, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { LINK_KIND } from '../contract/write-batch.js';
import type { ChangeSet } from '../changes/change-set.js';
import type { TouchedOwners } from '../contract/commands.js';

async function ids(trx: Kysely<Database>, query: RawBuilder<{ id: number }>): Promise<number[]> {
  const { rows } = await query.execute(trx);
  return rows.map((r) => Number(r.id)).sort((a, b) => a - b);
}

/**
 * A feed or threat is recomputed when it has new or changed links, or a linked indicator changed.
 * It is relisted when a record it lists changed (a changed feed is listed by the threats it shares
 * indicators with, and the other way round), or when a new link of the other kind changed the
 * indicators it shares with that owner. A changed feed or threat record itself is relisted: its own
 * aggregates do not read its record, but one new to the store has none yet (see refreshOwners).
 */
export async function touchedOwners(trx: Kysely<Database>, changes: ChangeSet): Promise<TouchedOwners> {
  const feeds = await touchedOf(trx, SIDES.feed, changes);
  const threats = await touchedOf(trx, SIDES.threat, changes);
  return {
    recompute: { feeds: feeds.recompute, threats: threats.recompute },
    relist: { feeds: feeds.relist, threats: threats.relist },
  };
}

/** The tables of each kind of owner, and of the other kind. */
const SIDES = {
  feed: { kind: LINK_KIND.feed, other: LINK_KIND.threat, links: 'feed_links', otherLinks: 'threat_links', owner: 'fid', otherOwner: 'tid', changed: 'feeds', otherChanged: 'threats' },
  threat: { kind: LINK_KIND.threat, other: LINK_KIND.feed, links: 'threat_links', otherLinks: 'feed_links', owner: 'tid', otherOwner: 'fid', changed: 'threats', otherChanged: 'feeds' },
} as const;

/**
 * Each part is written as `iid in (subquery)`, which both planners drive from the (small) staging
 * side through the links' iid index; as joins, SQLite (without statistics for temporary tables)
 * chose to scan every link of the store.
 */
async function touchedOf(
  trx: Kysely<Database>, side: (typeof SIDES)[keyof typeof SIDES], changes: ChangeSet,
): Promise<{ recompute: number[]; relist: number[] }> {
  const links = sql.table(side.links);
  const owner = sql.ref(side.owner);
  const recompute = await ids(
    trx,
    sql<{ id: number }>`
      select owner as id from (${changes.links('changed', side.kind)}) as s
      union select ${owner} as id from ${links} where iid in (${changes.changedIds('indicators')})`,
  );
  const relist = await ids(
    trx,
    sql<{ id: number }>`
      select id from (${changes.changedIds(side.changed)}) as c
      union select ${owner} as id from ${links} where iid in (select iid from (${changes.links('changed', side.other)}) as s)
      union select ${owner} as id from ${links} where iid in (
        select iid from ${sql.table(side.otherLinks)} where ${sql.ref(side.otherOwner)} in (${changes.changedIds(side.otherChanged)}))`,
  );
  const recomputed = new Set(recompute);
  return { recompute, relist: relist.filter((id) => !recomputed.has(id)) };
}
