// Collection membership: which STIX objects each configured TAXII collection (a saved view) holds.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { CollectionConfig, CollectionFilter } from '../../config.js';
import type { DateAddedClock } from './date-added-clock.js';
import type { Database } from '../db/schema.js';

/** Risk levels in increasing order for `minRisk` views; unknown and retired indicators never qualify. */
const RANKED_RISKS = ['none', 'low', 'medium', 'high', 'critical'] as const;

export function isUnfiltered(filter: CollectionFilter): boolean {
  return Object.values(filter).every((value) => value === undefined);
}

/**
 * The conditions on an indicator `i` that a view's filter sets: what the view holds, and what the
 * exports of the collection list (export-queries.ts), from this one definition. `after`, an
 * export's keyset position, bounds the owner's links too: each page then reads the links after it,
 * not the owner's every link, which a large feed's export would read again for every page.
 */
export function viewIndicatorConditions(filter: CollectionFilter, after?: number): RawBuilder<unknown> {
  const conditions: RawBuilder<unknown>[] = [sql`1 = 1`];
  const linkAfter = (alias: 'fl' | 'tl') => (after === undefined ? sql`` : sql` and ${sql.ref(`${alias}.iid`)} > ${after}`);
  if (filter.sample !== undefined) conditions.push(sql`i.iid in (select iid from indicators order by iid limit ${filter.sample})`);
  // As IN lists, so that the owner's links (read by their page index) drive the lookup rather
  // than every indicator being tested against them.
  if (filter.fid !== undefined) conditions.push(sql`i.iid in (select fl.iid from feed_links fl where fl.fid = ${filter.fid}${linkAfter('fl')})`);
  if (filter.tid !== undefined) conditions.push(sql`i.iid in (select tl.iid from threat_links tl where tl.tid = ${filter.tid}${linkAfter('tl')})`);
  return sql.join([...conditions, ...rowConditions(filter)], sql` and `);
}

/**
 * The same conditions as viewIndicatorConditions, each a probe of one indicator `i`: its links by
 * their (iid, owner) index, the sample's bound read once. For a few indicators (an observation's
 * new sightings), where the IN lists would each read the view's whole set.
 */
function oneIndicatorConditions(filter: CollectionFilter): RawBuilder<unknown> {
  const conditions: RawBuilder<unknown>[] = [sql`1 = 1`];
  // The sample is the lowest `sample` iids: at most the iid at that rank (all of them when there are fewer).
  if (filter.sample !== undefined) conditions.push(sql`i.iid <= coalesce((select iid from indicators order by iid limit 1 offset ${filter.sample - 1}), i.iid)`);
  if (filter.fid !== undefined) conditions.push(sql`exists (select 1 from feed_links fl where fl.iid = i.iid and fl.fid = ${filter.fid})`);
  if (filter.tid !== undefined) conditions.push(sql`exists (select 1 from threat_links tl where tl.iid = i.iid and tl.tid = ${filter.tid})`);
  return sql.join([...conditions, ...rowConditions(filter)], sql` and `);
}

/** The conditions on the indicator's own row: its risk and type. */
function rowConditions(filter: CollectionFilter): RawBuilder<unknown>[] {
  const conditions: RawBuilder<unknown>[] = [];
  if (filter.minRisk !== undefined) {
    const from = RANKED_RISKS.indexOf(filter.minRisk as (typeof RANKED_RISKS)[number]);
    const levels = from === -1 ? [] : RANKED_RISKS.slice(from);
    conditions.push(levels.length ? sql`i.risk in (${sql.join(levels)}) and (i.retired is null or i.retired = 0)` : sql`1 = 0`);
  }
  if (filter.types !== undefined) conditions.push(sql`i.type in (${sql.join(filter.types)})`);
  return conditions;
}

/** The iids of the indicators a view selects. */
function indicatorSet(filter: CollectionFilter): RawBuilder<unknown> {
  return sql`select i.iid from indicators i where ${viewIndicatorConditions(filter)}`;
}

/**
 * The ids of the attack-patterns of the techniques that the view's threats cite now (technique-sync.ts):
 * an attack-pattern has no tid of its own, as several threats share it.
 */
function viewAttackPatterns(filter: CollectionFilter, set: RawBuilder<unknown>): RawBuilder<unknown> {
  const onlyThreat = filter.tid !== undefined ? sql` and tt.tid = ${filter.tid}` : sql``;
  return sql`select tt.attack_pattern from threat_techniques tt
    where tt.active = 1 and tt.tid in (select tl.tid from threat_links tl where tl.iid in (${set}))${onlyThreat}`;
}

/**
 * A filtered view holds its indicators with their relationships and sightings, the threats those
 * point at with the threats' own relationships (to their techniques, from their earlier objects),
 * the attack-patterns of those techniques, and every identity (organizations and threatgate itself:
 * few, and referenced as created_by_ref).
 */
function viewCondition(filter: CollectionFilter): RawBuilder<unknown> {
  const set = indicatorSet(filter);
  const onlyThreat = filter.tid !== undefined ? sql` and s.tid = ${filter.tid}` : sql``;
  return sql`(s.type = 'identity'
    or (s.type in ('indicator', 'sighting') and s.iid in (${set}))
    or (s.type = 'relationship' and s.iid in (${set})${onlyThreat})
    or (s.iid is null and s.tid is not null and s.tid in (select tl.tid from threat_links tl where tl.iid in (${set}))${onlyThreat})
    or (s.type = 'attack-pattern' and s.iid is null and s.tid is null and s.id in (${viewAttackPatterns(filter, set)})))`;
}

/**
 * The objects a filtered view holds (the rows viewCondition selects), reached through the
 * indexes from the view's indicators: the cost follows the view's size, not the store's. Identities
 * and threats have no iid; identities and attack-patterns no tid either.
 */
export function viewObjects(filter: CollectionFilter): RawBuilder<unknown> {
  const set = indicatorSet(filter);
  const onlyThreat = filter.tid !== undefined ? sql` and s.tid = ${filter.tid}` : sql``;
  return sql`
    select s.id, s.type, s.modified, s.date_added from stix_objects s where s.iid is null and s.tid is null and s.type = 'identity'
    union all
    select s.id, s.type, s.modified, s.date_added from (${set}) v join stix_objects s on s.iid = v.iid
      where (s.type = 'indicator' or s.type = 'sighting' or (s.type = 'relationship'${onlyThreat}))
    union all
    select s.id, s.type, s.modified, s.date_added from stix_objects s
      where s.iid is null and s.tid in (select tl.tid from threat_links tl where tl.iid in (${set}))${onlyThreat}
    union all
    select s.id, s.type, s.modified, s.date_added from stix_objects s
      where s.id in (${viewAttackPatterns(filter, set)}) and s.type = 'attack-pattern' and s.iid is null and s.tid is null`;
}

const JOIN_BATCH = 2000;

/**
 * The STIX objects `s` whose final version a view keeps once it held them: a revoked one, and the
 * indicator of a retired indicator (the `retired` flag or risk), whose version has `valid_until`.
 */
const FINAL_VERSION = sql`(s.revoked = 1 or (s.type = 'indicator'
  and exists (select 1 from indicators r where r.iid = s.iid and (r.risk = 'retired' or r.retired = 1))))`;

/**
 * Brings one filtered collection up to date after objects changed: new versions keep the date_added
 * they got when recorded; objects that join the view without a new version get a fresh one; objects
 * that left the view, or were removed, are dropped. A revoked object stays in every view that held
 * it, so that the view's pollers see its final version, and so does a retired indicator, expired by
 * `valid_until`: it leaves a `minRisk` view by its risk `retired`, yet the view's pollers must learn
 * that it expired. An object that merely leaves a view (its risk fell below the view's, say) is
 * still valid, and is not revoked (docs/stix-mapping.md).
 */
async function refreshView(db: Kysely<Database>, collection: CollectionConfig, clock: DateAddedClock, newVersionsOnly: boolean): Promise<void> {
  if (newVersionsOnly) {
    await refreshNewVersions(db, collection, clock);
    return;
  }
  const c = collection.id;
  const cond = viewCondition(collection.filter);
  await sql`delete from collection_objects where collection = ${c}
    and id not in (select o.id from (${viewObjects(collection.filter)}) o)
    and not exists (select 1 from stix_objects s where s.id = collection_objects.id and ${FINAL_VERSION})`.execute(db);
  await sql`insert into collection_objects (collection, id, type, modified, date_added)
    select ${c}, s.id, s.type, s.modified, s.date_added from stix_objects s where s.date_added >= ${clock.importStart}
      and (${cond} or (${FINAL_VERSION} and exists (select 1 from collection_objects m where m.collection = ${c} and m.id = s.id)))
    on conflict (collection, id) do update set type = excluded.type, modified = excluded.modified, date_added = excluded.date_added`.execute(db);
  for (;;) {
    const { rows } = await sql<{ id: string; type: string; modified: string }>`
      select o.id, o.type, o.modified from (${viewObjects(collection.filter)}) o
      where not exists (select 1 from collection_objects c where c.collection = ${c} and c.id = o.id)
      order by o.date_added, o.id limit ${JOIN_BATCH}`.execute(db);
    if (rows.length === 0) break;
    await db
      .insertInto('collection_objects')
      .values(rows.map((r) => ({ collection: c, id: r.id, type: r.type, modified: r.modified, date_added: clock.next() })))
      .execute();
  }
}

/**
 * A view after a write that made new versions and changed nothing the view selects by (refreshCollections):
 * an object it held takes its new version, one it did not hold stays out, and a sighting made for
 * the first time joins when the view holds its indicator. An observation makes no other new object:
 * its threats' objects were made with the threats. The write's versions are read first and named
 * by id, so each statement is a few index probes whatever the planner guesses of the date range.
 */
async function refreshNewVersions(db: Kysely<Database>, collection: CollectionConfig, clock: DateAddedClock): Promise<void> {
  const c = collection.id;
  const upsert = sql`on conflict (collection, id) do update set type = excluded.type, modified = excluded.modified, date_added = excluded.date_added`;
  // In pages in the (date_added, id) index's order, which a LIMIT makes the planner walk even on a
  // store it has no statistics for yet (a first write after a bulk import).
  for (let after = { dateAdded: clock.importStart, id: '' }; ; ) {
    const chunk = await db
      .selectFrom('stix_objects')
      .select(['id', 'type', 'date_added'])
      .where('date_added', '>=', after.dateAdded)
      .where((eb) => eb.or([eb('date_added', '>', after.dateAdded), eb('id', '>', after.id)]))
      .orderBy('date_added')
      .orderBy('id')
      .limit(JOIN_BATCH)
      .execute();
    if (chunk.length === 0) return;
    after = { dateAdded: Number(chunk.at(-1)!.date_added), id: chunk.at(-1)!.id };
    await sql`insert into collection_objects (collection, id, type, modified, date_added)
      select ${c}, s.id, s.type, s.modified, s.date_added from stix_objects s
      where s.id in (${sql.join(chunk.map((o) => o.id))}) and exists (select 1 from collection_objects m where m.collection = ${c} and m.id = s.id)
      ${upsert}`.execute(db);
    const sightings = chunk.filter((o) => o.type === 'sighting').map((o) => o.id);
    if (sightings.length === 0) continue;
    await sql`insert into collection_objects (collection, id, type, modified, date_added)
      select ${c}, s.id, s.type, s.modified, s.date_added from stix_objects s
      where s.id in (${sql.join(sightings)}) and exists (select 1 from indicators i where i.iid = s.iid and ${oneIndicatorConditions(collection.filter)})
      ${upsert}`.execute(db);
  }
}

/** The newest date_added of a view, if added by this import, is raised to a whole millisecond. */
async function alignNewest(db: Kysely<Database>, collection: CollectionConfig, clock: DateAddedClock): Promise<void> {
  const unfiltered = isUnfiltered(collection.filter);
  const newest = unfiltered
    ? await db.selectFrom('stix_objects').select(['id', 'date_added']).orderBy('date_added', 'desc').limit(1).executeTakeFirst()
    : await db
        .selectFrom('collection_objects')
        .select(['id', 'date_added'])
        .where('collection', '=', collection.id)
        .orderBy('date_added', 'desc')
        .limit(1)
        .executeTakeFirst();
  if (!newest || Number(newest.date_added) < clock.importStart || Number(newest.date_added) % 1000 === 0) return;
  const aligned = clock.alignToMillisecond(Number(newest.date_added));
  if (unfiltered) await db.updateTable('stix_objects').set({ date_added: aligned }).where('id', '=', newest.id).execute();
  else await db.updateTable('collection_objects').set({ date_added: aligned }).where('collection', '=', collection.id).where('id', '=', newest.id).execute();
}

/**
 * Brings every configured collection up to date. An unfiltered collection is the whole of
 * stix_objects, dated by its date_added, and keeps no membership rows: at a million indicators
 * that saves writing and indexing every object a second time.
 *
 * `newVersionsOnly`: the write changed no record, link or technique, only made new versions (an
 * observation's: a threat's `last_seen`, an indicator's sighting). What each view selects is then
 * as it was, so no member leaves and none joins without a new version: only the new versions the
 * view selects are written, and the cost follows the write, not the views' sizes.
 */
export async function refreshCollections(db: Kysely<Database>, collections: readonly CollectionConfig[], clock: DateAddedClock, newVersionsOnly = false): Promise<void> {
  for (const collection of collections) {
    if (!isUnfiltered(collection.filter)) await refreshView(db, collection, clock, newVersionsOnly);
    await alignNewest(db, collection, clock);
  }
}

/** Drops the membership rows of collections that are no longer configured, or no longer filtered. */
export async function dropStaleMemberships(db: Kysely<Database>, collections: readonly CollectionConfig[]): Promise<void> {
  const kept = collections.filter((c) => !isUnfiltered(c.filter)).map((c) => c.id);
  const stale = kept.length > 0 ? sql`collection not in (${sql.join(kept)})` : sql`1 = 1`;
  await sql`delete from collection_objects where ${stale}`.execute(db);
}

/**
 * Gives every object a new date_added after all those handed out, in the same order: a collection
 * that turns unfiltered now shows objects it did not hold, and a client polling it with added_after
 * must see them (it sees the others again too: repeats, never losses).
 */
export async function restampObjects(db: Kysely<Database>, clock: DateAddedClock): Promise<void> {
  const range = await db.selectFrom('stix_objects').select((eb) => [eb.fn.min('date_added').as('low'), eb.fn.max('date_added').as('high')]).executeTakeFirst();
  if (range?.low === null || range?.low === undefined) return;
  const low = Number(range.low);
  const start = clock.next();
  await db.updateTable('stix_objects').set((eb) => ({ date_added: eb('date_added', '+', start - low) })).execute();
  clock.reserveThrough(start + Number(range.high) - low);
}

/** The configured views as stored in the meta table, to notice when the configuration changes. */
export function collectionsFingerprint(collections: readonly CollectionConfig[]): string {
  return JSON.stringify(collections.map((c) => [c.id, c.filter]));
}

/** Ids of collections that the stored fingerprint had filtered and the configuration leaves unfiltered. */
export function collectionsNowUnfiltered(previous: string | undefined, collections: readonly CollectionConfig[]): string[] {
  let before: [string, CollectionFilter][];
  try {
    before = JSON.parse(previous ?? '[]') as [string, CollectionFilter][];
  } catch {
    return [];
  }
  if (!Array.isArray(before)) return [];
  const filtered = new Set(before.filter(([, filter]) => !isUnfiltered(filter ?? {})).map(([id]) => id));
  return collections.filter((c) => isUnfiltered(c.filter) && filtered.has(c.id)).map((c) => c.id);
}
