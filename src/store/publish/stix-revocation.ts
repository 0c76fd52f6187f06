// Final, revoked versions of the objects that leave the export, written inside the import's transaction.
import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import {
  laterStixTime,
  StixMappingError,
  stixIdForIndicator,
  stixIdForIndicatorLink,
  stixIdForThreatRecord,
  stixTimeAfter,
  THREAT_SDO_TYPES,
  THREATGATE_IDENTITY,
  toRevokedVersion,
  toStixRelationship,
  type StixObject,
} from '../../stix/index.js';
import type { DateAddedClock } from './date-added-clock.js';
import type { Dialect } from '../db/migrations.js';
import type { Database } from '../db/schema.js';
import { indicatorSources, versionHash, type IndicatorRecord } from '../../stix/project-records.js';
import { organizationOf } from './stix-rows.js';
import { INDICATOR_COLUMNS } from '../contract/write-batch.js';

/**
 * An import that changes an indicator's type or value may leave it without a STIX form (a value
 * that is no address of its new type). Its object is then revoked, and the revoked version must
 * repeat what clients hold, which only the indicator's earlier row can render: the rows of such
 * changes are kept here (`repatterned` 1), in the import's transaction, before the import
 * overwrites them. The earlier rows of the indicators changed otherwise are kept too (`repatterned`
 * 0): the aggregates take an indicator's earlier contribution away from its feeds and threats
 * before adding its new one (value-counts.ts).
 */
export async function createReplacedIndicators(trx: Kysely<Database>, dialect: Dialect): Promise<void> {
  await sql`drop table if exists replaced_indicators`.execute(trx);
  await sql`create temporary table replaced_indicators (
    iid bigint primary key, value text not null, type text not null, risk text not null,
    stamp_added text, stamp_updated text, retired integer, attributes text not null, properties text not null,
    repatterned integer not null) ${dialect === 'postgres' ? sql`on commit drop` : sql``}`.execute(trx);
}

export async function dropReplacedIndicators(trx: Kysely<Database>): Promise<void> {
  await sql`drop table if exists replaced_indicators`.execute(trx);
}

const IID_AT = INDICATOR_COLUMNS.indexOf('iid');
const VALUE_AT = INDICATOR_COLUMNS.indexOf('value');
const TYPE_AT = INDICATOR_COLUMNS.indexOf('type');
const HASH_AT = INDICATOR_COLUMNS.indexOf('content_hash');

/**
 * Keeps the current rows of the indicators in an upsert batch (write-batch.ts: `count` rows of
 * INDICATOR_COLUMNS) that the batch changes (another content hash: the upsert's own test), marking
 * those whose type or value changes. A batch that changes nothing (a re-import) reads the hashes alone.
 */
export async function keepReplacedIndicators(trx: Transaction<Database>, params: readonly unknown[], count: number): Promise<void> {
  const width = INDICATOR_COLUMNS.length;
  const incoming = new Map<number, { pattern: string; hash: unknown }>();
  for (let at = 0; at < count * width; at += width) {
    incoming.set(Number(params[at + IID_AT]), { pattern: `${params[at + TYPE_AT]}\u0000${params[at + VALUE_AT]}`, hash: params[at + HASH_AT] });
  }
  if (incoming.size === 0) return;
  const { rows } = await sql<{ iid: number; type: string; value: string; content_hash: string }>`
    select iid, type, value, content_hash from indicators where iid in (${sql.join([...incoming.keys()])})`.execute(trx);
  const changed: number[] = [];
  const repatterned: number[] = [];
  for (const r of rows) {
    const next = incoming.get(Number(r.iid))!;
    if (next.hash === r.content_hash) continue;
    changed.push(Number(r.iid));
    if (next.pattern !== `${r.type}\u0000${r.value}`) repatterned.push(Number(r.iid));
  }
  if (changed.length === 0) return;
  const marked = repatterned.length === 0 ? sql`0` : sql`case when iid in (${sql.join(repatterned)}) then 1 else 0 end`;
  // A key comes at most once with its content (import-checks.ts), so a row is kept once, from before the import.
  await sql`insert into replaced_indicators (iid, value, type, risk, stamp_added, stamp_updated, retired, attributes, properties, repatterned)
    select iid, value, type, risk, stamp_added, stamp_updated, retired, attributes, properties, ${marked} from indicators where iid in (${sql.join(changed)})
    on conflict (iid) do nothing`.execute(trx);
}

/**
 * Keeps the current rows of the indicators `iids` selects (a query giving one iid column), for a
 * writer that changes indicators in place rather than by upsert batches (a pull raising a risk): the
 * aggregates then take their earlier rows away from their owners' counts instead of reading those
 * owners again (value-counts.ts). Rows kept of indicators that do not change in the end are unused.
 */
export async function keepIndicatorRows(trx: Kysely<Database>, iids: RawBuilder<unknown>): Promise<void> {
  await sql`insert into replaced_indicators (iid, value, type, risk, stamp_added, stamp_updated, retired, attributes, properties, repatterned)
    select iid, value, type, risk, stamp_added, stamp_updated, retired, attributes, properties, 0 from indicators where iid in (${iids})
    on conflict (iid) do nothing`.execute(trx);
}

/** A stored object about to be revoked. */
export interface StoredObject {
  id: string;
  type: string;
  modified: string;
  body: string;
  iid: number | null;
  tid: number | null;
}

/** Reads the stored objects, not yet revoked, that `where` selects (conditions on the alias `s`). */
export async function liveObjects(db: Kysely<Database>, where: RawBuilder<unknown>): Promise<StoredObject[]> {
  const { rows } = await sql<StoredObject>`
    select s.id, s.type, s.modified, s.body, s.iid, s.tid from stix_objects s where s.revoked = 0 and ${where} order by s.id`.execute(db);
  return rows.map((r) => ({ ...r, iid: r.iid === null ? null : Number(r.iid), tid: r.tid === null ? null : Number(r.tid) }));
}

/**
 * Publishes the final version of each object: the version clients hold, `revoked`, with a later
 * `modified` and a new date_added, so a poller sees it after its cursor. Its body is stored, since
 * its records no longer render it. An object whose last version cannot be rendered any more (its
 * records are gone) is removed, as it could not be served either.
 */
export async function revokeObjects(db: Kysely<Database>, objects: readonly StoredObject[], now: string, dates: DateAddedClock): Promise<void> {
  for (const object of objects) {
    const last = await lastVersion(db, object);
    if (last === undefined) {
      await db.deleteFrom('stix_objects').where('id', '=', object.id).execute();
      continue;
    }
    const body = JSON.stringify(toRevokedVersion(last, laterStixTime(now, stixTimeAfter(object.modified))));
    const revoked = JSON.parse(body) as StixObject;
    await db
      .updateTable('stix_objects')
      .set({ modified: revoked.modified, date_added: dates.next(), body, source_hash: versionHash(object.type, body), revoked: 1 })
      .where('id', '=', object.id)
      .execute();
  }
}

/** The object as its stored version shows it: the stored body, or rendered from the records it came from. */
async function lastVersion(db: Kysely<Database>, object: StoredObject): Promise<StixObject | undefined> {
  if (object.body !== '') return JSON.parse(object.body) as StixObject;
  try {
    if (object.type === 'indicator' && object.iid !== null) return await lastIndicatorVersion(db, object.iid, object.modified);
    if (object.type === 'relationship' && object.iid !== null && object.tid !== null) return await lastRelationshipVersion(db, object);
  } catch (error) {
    if (!(error instanceof StixMappingError)) throw error;
  }
  return undefined;
}

/** The indicator's row from before this import changed it (else its current row), rendered as stored. */
async function lastIndicatorVersion(db: Kysely<Database>, iid: number, modified: string): Promise<StixObject | undefined> {
  const organization = sql`${organizationOf(sql`${iid}`)} as organization`;
  const kept = await sql<IndicatorRecord>`
    select iid, value, type, risk, stamp_added, retired, attributes, ${organization} from replaced_indicators where iid = ${iid} and repatterned = 1`.execute(db);
  const { rows } = kept.rows.length > 0 ? kept : await sql<IndicatorRecord>`
    select iid, value, type, risk, stamp_added, retired, attributes, ${organization} from indicators where iid = ${iid}`.execute(db);
  return indicatorSources(rows)[0]?.render(modified);
}

/**
 * A relationship's id names its threat's SDO type (stixIdForIndicatorLink), which the threat's
 * category may no longer give: the type is found again by trying each one a threat can map to.
 */
async function lastRelationshipVersion(db: Kysely<Database>, object: StoredObject): Promise<StixObject | undefined> {
  const iid = object.iid!;
  const tid = object.tid!;
  const link = await db.selectFrom('threat_links').select('stamp_linked').where('tid', '=', tid).where('iid', '=', iid).executeTakeFirst();
  const threat = await db.selectFrom('threats').select('stix_generation').where('tid', '=', tid).executeTakeFirst();
  // And the generation it was made in (a threat reactivated after retirement has new ids).
  let found: { type: string; generation: number } | undefined;
  for (let generation = Number(threat?.stix_generation ?? 0); generation >= 0 && found === undefined; generation--) {
    const type = THREAT_SDO_TYPES.find((t) => stixIdForIndicatorLink(iid, tid, t, generation) === object.id);
    if (type !== undefined) found = { type, generation };
  }
  if (link === undefined || found === undefined) return undefined;
  return toStixRelationship(
    { iid, tid, stamp_linked: link.stamp_linked, generation: found.generation },
    {
      modified: object.modified,
      sourceRef: stixIdForIndicator(iid),
      targetRef: stixIdForThreatRecord(tid, found.type, found.generation),
      createdByRef: THREATGATE_IDENTITY.id,
    },
  );
}
