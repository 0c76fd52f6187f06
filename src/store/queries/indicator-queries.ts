// Read queries of the indicator lookup (docs/interface.md section 4.3): one indicator by iid or by value, with the
// threats and feeds it is linked to, the indicators stored under a list of values (the blocks holding
// an address), and an indicator's properties, each read on an index.
import { sql, type Kysely, type Selectable } from 'kysely';
import type { JsonObject, Risk } from '../../domain.js';
import type { IndicatorRecord, IndicatorRetiredReason } from '../contract/records.js';
import type { IndicatorRef } from '../contract/store.js';
import type { Database, IndicatorTable } from '../db/schema.js';
import { laterStampOf, listingStampOf } from '../db/listing-stamps.js';

/** The latest stamp of the feeds listing the row's indicator (db/listing-stamps.ts), read with the row. */
const LISTED = listingStampOf(sql.ref('indicators.iid')).as('listed_at');

/** The row with its stamp_seen as the API gives it: its own, or its listings' when later. */
function seenAsListed({ listed_at: listed, ...row }: Selectable<IndicatorTable> & { listed_at: string | null }): Selectable<IndicatorTable> {
  return { ...row, stamp_seen: laterStampOf(row.stamp_seen, listed) };
}

export async function findIndicator(db: Kysely<Database>, iid: number): Promise<IndicatorRecord | undefined> {
  const row = await db.selectFrom('indicators').selectAll().select(LISTED).where('iid', '=', iid).executeTakeFirst();
  return row && withLinks(db, seenAsListed(row));
}

/**
 * The indicator whose stored value is `value` under one of `types`: one seek per value and type on
 * indicators_value (value, type). A value stored under several of them (an import's `ipv4` beside
 * a pull's `ip`) is the lowest iid, the one a pull would take as that value's indicator. When none
 * is, the value `asGiven` (an import may store a value unnormalized: `Secure-Login.Example.com`).
 */
export async function findIndicatorByValue(db: Kysely<Database>, value: string, types: readonly string[], asGiven = value): Promise<IndicatorRecord | undefined> {
  const row = await findIndicatorRow(db, value, types, asGiven);
  return row && withLinks(db, row);
}

/** The stored row findIndicatorByValue reads, its stamp_seen as the API gives it (provenance reads it too, with links of its own). */
export async function findIndicatorRow(db: Kysely<Database>, value: string, types: readonly string[], asGiven = value): Promise<Selectable<IndicatorTable> | undefined> {
  if (types.length === 0) return undefined;
  const values = asGiven === value ? [value] : [value, asGiven];
  const row = await db
    .selectFrom('indicators')
    .selectAll()
    .select(LISTED)
    .where('value', 'in', values)
    .where('type', 'in', [...types])
    // The normalized value first; the value as given only when no indicator has that.
    .orderBy(sql`case when value = ${value} then 0 else 1 end`)
    .orderBy('iid')
    .limit(1)
    .executeTakeFirst();
  return row && seenAsListed(row);
}

/** The links by iid come from the covering indexes feed_links_iid (iid, fid) and threat_links_iid (iid, tid). */
async function withLinks(db: Kysely<Database>, row: Selectable<IndicatorTable>): Promise<IndicatorRecord> {
  const iid = Number(row.iid);
  const threats = await db
    .selectFrom('threat_links as l')
    .innerJoin('threats as t', 't.tid', 'l.tid')
    .select(['t.tid', 't.name', 't.category', 't.risk', 'l.stamp_linked'])
    .where('l.iid', '=', iid)
    .orderBy('l.tid')
    .execute();
  const feeds = await db
    .selectFrom('feed_links as l')
    .innerJoin('feeds as f', 'f.fid', 'l.fid')
    .select(['f.fid', 'f.name', 'f.category', 'f.organization', 'f.pricing', 'l.stamp_linked'])
    .where('l.iid', '=', iid)
    .orderBy('l.fid')
    .execute();
  return {
    iid,
    type: row.type,
    indicator: row.value,
    risk: row.risk as Risk,
    ...retirementOf(row),
    stamp_added: row.stamp_added,
    stamp_updated: row.stamp_updated,
    stamp_seen: row.stamp_seen,
    threats: threats.map((t) => ({ tid: Number(t.tid), name: t.name, category: t.category, risk: t.risk as Risk, stamp_linked: t.stamp_linked })),
    feeds: feeds.map((f) => ({ fid: Number(f.fid), name: f.name, category: f.category, organization: f.organization, pricing: f.pricing, stamp_linked: f.stamp_linked })),
    attributes: JSON.parse(row.attributes),
    // Kept on the row as observations arrive (ingest/observation-writer.ts): no count over their rows.
    sightings: Number(row.sightings),
    stamp_sighted: row.stamp_sighted,
    submissions: Number(row.submissions),
  };
}

/**
 * Whether a stored indicator is retired, and why and when. The reason and stamp describe a
 * retirement the service made (risk `retired`); an import that later gave the indicator another
 * risk ended it, whether or not it cleared them.
 */
export function retirementOf(row: Pick<Selectable<IndicatorTable>, 'risk' | 'retired' | 'retired_reason' | 'stamp_retired'>): {
  retired: boolean;
  retired_reason: IndicatorRetiredReason | null;
  stamp_retired: string | null;
} {
  const retiredByRisk = row.risk === 'retired';
  return {
    retired: retiredByRisk || Number(row.retired ?? 0) === 1,
    retired_reason: retiredByRisk ? (row.retired_reason as IndicatorRetiredReason | null) : null,
    stamp_retired: retiredByRisk ? row.stamp_retired : null,
  };
}

/**
 * The indicators stored under any of `values` with one of `types`, newest first: one `value in (...)`
 * on indicators_value (value, type). The blocks holding an address are at most 128 such names
 * (ip-range.ts), so this answers "which stored blocks contain it" without scanning ranges.
 */
export async function findIndicatorsByValues(db: Kysely<Database>, values: readonly string[], types: readonly string[]): Promise<IndicatorRef[]> {
  if (values.length === 0 || types.length === 0) return [];
  const rows = await db
    .selectFrom('indicators')
    .select(['iid', 'value', 'type', 'risk', 'retired'])
    .where('value', 'in', [...values])
    .where('type', 'in', [...types])
    .orderBy('iid', 'desc')
    .execute();
  return rows.map((row) => ({ iid: Number(row.iid), indicator: row.value, type: row.type, risk: row.risk as Risk, retired: row.risk === 'retired' || Number(row.retired ?? 0) === 1 }));
}

/** The indicator's stored free-form properties; undefined when no indicator has the iid. */
export async function findIndicatorProperties(db: Kysely<Database>, iid: number): Promise<JsonObject | undefined> {
  const row = await db.selectFrom('indicators').select('properties').where('iid', '=', iid).executeTakeFirst();
  return row && (JSON.parse(row.properties) as JsonObject);
}
