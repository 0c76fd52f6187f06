// Keeps the indexes explore reads (docs/explore.md, "How queries stay bounded") in step with the
// indicators a write inserted or changed: each stored address or block as its range
// (indicator_networks) and each attribute value (indicator_attribute_values), keyed as
// db/search-keys.ts keys them. The values' trigram indexes are kept by triggers on indicators:
// PostgreSQL's table of lowercased values (db/wildcard-migration.ts), SQLite's FTS5 table
// (db/search-migration.ts).
import { sql, type Kysely } from 'kysely';
import type { ChangeSet } from '../changes/change-set.js';
import type { Dialect } from '../db/dialect.js';
import type { Database } from '../db/schema.js';
import { deleteAttributeValues, inIds, writeAttributeValues, writeNetworks } from '../db/search-keys.js';

/** Changed indicators handled per round: their ids are one list in each statement, not a subquery read again for every page. */
const IDS_PER_ROUND = 5000;

/**
 * After a write's ingest, in its transaction: the ranges of the indicators it inserted or whose value
 * or type it changed, and the attribute values of those whose attributes it changed. An indicator a
 * write changed in place otherwise (a pull raising its risk, a lifecycle retiring it) keeps its rows:
 * a re-pull that changes no value and no attribute writes nothing here. The changed ids are read in
 * order, a round at a time, so a write of a million indicators costs a million, not rounds times that.
 */
export async function refreshSearchIndex(trx: Kysely<Database>, dialect: Dialect, changes: ChangeSet): Promise<void> {
  if (changes.indicators === 0) return;
  const replaced = changes.replacedIndicators();
  let after = -1;
  for (;;) {
    const { rows } = await sql<{ id: number }>`select c.id from (${changes.changedIds('indicators')}) as c where c.id > ${after} order by c.id limit ${IDS_PER_ROUND}`.execute(trx);
    if (rows.length === 0) return;
    const ids = inIds(dialect, rows.map((r) => Number(r.id)));
    // A changed indicator whose earlier row was kept with the same type and value keeps its range.
    const moved = sql`i.iid ${ids} and not exists (select 1 from (${replaced}) as r where r.iid = i.iid and r.repatterned = 0)`;
    // By the round's ids themselves: an indicator without a row here has no range to delete, so
    // joining the ids through indicators first only added a probe of indicators for each
    // (bench/README.md, "PostgreSQL: the staged values joined").
    if (!changes.fresh) {
      await sql`delete from indicator_networks where iid ${ids}
        and not exists (select 1 from (${replaced}) as r where r.iid = indicator_networks.iid and r.repatterned = 0)`.execute(trx);
    }
    await writeNetworks(trx, dialect, moved);
    // The earlier keys of indicators whose attributes changed go; the keys of those and of new ones come.
    if (!changes.fresh) {
      await deleteAttributeValues(trx, sql`select r.iid, r.attributes from (${replaced}) as r join indicators i on i.iid = r.iid where r.iid ${ids} and i.attributes <> r.attributes`);
    }
    await writeAttributeValues(
      trx,
      dialect,
      sql`select i.iid, i.attributes from indicators i where i.iid ${ids} and i.attributes <> '{}' and not exists (
        select 1 from (${replaced}) as r where r.iid = i.iid and r.attributes = i.attributes)`,
    );
    if (rows.length < IDS_PER_ROUND) return;
    after = Number(rows[rows.length - 1]!.id);
  }
}
