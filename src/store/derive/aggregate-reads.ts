// The two ways the aggregates read linked indicators: the whole store in iid order, or a few owners
// through their links. Both feed the same accumulation (aggregates.ts).
import { sql, type Kysely } from 'kysely';
import { Aggregates, type AggregateResults, type IndicatorAggregateRow } from './aggregates.js';
import type { Database } from '../db/schema.js';

/** Indicators read per statement. */
const CHUNK = 5000;

const INDICATOR_COLUMNS = sql`i.iid, i.type, i.risk, i.retired, i.stamp_updated, i.stamp_added, i.attributes, i.properties`;

/**
 * The aggregates of the given owners (all of the store's), from every linked indicator: the
 * indicators in iid order, a chunk at a time, with the feeds and threats each is linked to (read by
 * the links' iid indexes). Reading the indicators in order, rather than joining them from each
 * owner's links, keeps a million indicators from being fetched at random once per link.
 */
export async function aggregateWholeStore(trx: Kysely<Database>, fids: number[], tids: number[]): Promise<AggregateResults> {
  const aggregates = new Aggregates();
  const ownersIn = async (table: 'feed_links' | 'threat_links', after: number, last: number) => {
    const owner = table === 'feed_links' ? 'fid' : 'tid';
    const { rows } = await sql<{ owner: number; iid: number }>`
      select ${sql.ref(owner)} as owner, iid from ${sql.table(table)} where iid > ${after} and iid <= ${last}`.execute(trx);
    const byIid = new Map<number, number[]>();
    for (const row of rows) {
      const iid = Number(row.iid);
      const owners = byIid.get(iid);
      if (owners) owners.push(Number(row.owner));
      else byIid.set(iid, [Number(row.owner)]);
    }
    return byIid;
  };
  for (let after = Number.MIN_SAFE_INTEGER; ; ) {
    const { rows } = await sql<IndicatorAggregateRow & { iid: number }>`
      select ${INDICATOR_COLUMNS} from indicators i where i.iid > ${after} order by i.iid limit ${CHUNK}`.execute(trx);
    if (rows.length === 0) break;
    const last = Number(rows[rows.length - 1]!.iid);
    aggregates.add({ rows, feedsOf: await ownersIn('feed_links', after, last), threatsOf: await ownersIn('threat_links', after, last) });
    if (rows.length < CHUNK) break;
    after = last;
  }
  return aggregates.results(fids, tids);
}

/**
 * The aggregates of a few owners, each from its own linked indicators: read through its links in
 * iid order (the links' primary key), so an owner costs what it holds, whatever the store's size.
 */
export async function aggregateOwners(trx: Kysely<Database>, fids: readonly number[], tids: readonly number[]): Promise<AggregateResults> {
  const aggregates = new Aggregates();
  const read = async (kind: 'feed' | 'threat', owner: number) => {
    const [links, column] = kind === 'feed' ? ['feed_links', 'fid'] : ['threat_links', 'tid'];
    for (let after = Number.MIN_SAFE_INTEGER; ; ) {
      // The bound on i too: PostgreSQL carries no inequality across a join, and a merge join would
      // read indicators from the first row for every chunk.
      const { rows } = await sql<IndicatorAggregateRow & { iid: number }>`
        select ${INDICATOR_COLUMNS} from ${sql.table(links)} l join indicators i on i.iid = l.iid
        where ${sql.ref(`l.${column}`)} = ${owner} and l.iid > ${after} and i.iid > ${after} order by l.iid limit ${CHUNK}`.execute(trx);
      aggregates.addOwned(kind, owner, rows);
      if (rows.length < CHUNK) break;
      after = Number(rows[rows.length - 1]!.iid);
    }
  };
  for (const fid of fids) await read('feed', fid);
  for (const tid of tids) await read('threat', tid);
  return aggregates.results(fids, tids);
}
