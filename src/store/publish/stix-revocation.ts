// Final, revoked versions of the objects that leave the export, written inside the import's transaction.
import { sql, type Kysely, type RawBuilder } from 'kysely';
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
import type { Database } from '../db/schema.js';
import { indicatorSources, versionHash, type IndicatorRecord } from '../../stix/project-records.js';
import { organizationOf } from './version-records.js';
import type { ChangeSet } from '../changes/change-set.js';

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
 * records are gone) is removed, as it could not be served either. `changes`: the write's, whose
 * indicators' rows from before it a revoked indicator repeats (none outside a write).
 */
export async function revokeObjects(
  db: Kysely<Database>, objects: readonly StoredObject[], now: string, dates: DateAddedClock, changes: ChangeSet | undefined,
): Promise<void> {
  for (const object of objects) {
    const last = await lastVersion(db, object, changes);
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
async function lastVersion(db: Kysely<Database>, object: StoredObject, changes: ChangeSet | undefined): Promise<StixObject | undefined> {
  if (object.body !== '') return JSON.parse(object.body) as StixObject;
  try {
    if (object.type === 'indicator' && object.iid !== null) return await lastIndicatorVersion(db, object.iid, object.modified, changes);
    if (object.type === 'relationship' && object.iid !== null && object.tid !== null) return await lastRelationshipVersion(db, object);
  } catch (error) {
    if (!(error instanceof StixMappingError)) throw error;
  }
  return undefined;
}

/** The indicator's row from before this write changed it (else its current row), rendered as stored. */
async function lastIndicatorVersion(db: Kysely<Database>, iid: number, modified: string, changes: ChangeSet | undefined): Promise<StixObject | undefined> {
  const organization = sql`${organizationOf(sql`${iid}`)} as organization`;
  const kept = changes === undefined ? { rows: [] } : await sql<IndicatorRecord>`
    select iid, value, type, risk, stamp_added, retired, attributes, ${organization}
    from (${changes.replacedIndicators()}) as r where iid = ${iid} and repatterned = 1`.execute(db);
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
