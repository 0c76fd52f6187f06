// Keeps the STIX objects and collection memberships in step with the data, inside each import's transaction.
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { CollectionConfig } from '../config.js';
import { laterStixTime, stixIdForIndicator, StixMappingError, stixTimeAfter, stixTimeFromDate, type StixObject } from '../stix/index.js';
import { collectionsFingerprint, collectionsNowUnfiltered, dropStaleMemberships, refreshCollections, restampObjects } from './collection-views.js';
import { DateAddedClock } from './date-added-clock.js';
import { anyChange } from './derived-data.js';
import type { ImportChanges } from './import-writer.js';
import { readMeta, writeMeta } from './meta-queries.js';
import type { Database } from './schema.js';
import { CHUNK, renderIdentities, renderIndicators, renderRelationships, renderThreats, versionHash, type ObjectSource } from './stix-render.js';
import type { ImportHook } from './store.js';

const FINGERPRINT_KEY = 'collections_fingerprint';

/** Mapping errors (an indicator type without a STIX pattern, a malformed value) leave the record out. */
function renderOrSkip(source: ObjectSource, modified: string): StixObject | undefined {
  try {
    return source.render(modified);
  } catch (error) {
    if (error instanceof StixMappingError) return undefined;
    throw error;
  }
}

/** Writes a new version of each object whose content changed; equal content is left alone. */
class VersionWriter {
  private readonly now: string;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: DateAddedClock,
    nowMs: number,
  ) {
    this.now = stixTimeFromDate(new Date(nowMs));
  }

  /** Returns the ids of the sources that have a STIX form (changed or not). */
  async write(sources: ObjectSource[]): Promise<string[]> {
    const produced: string[] = [];
    for (let i = 0; i < sources.length; i += CHUNK) produced.push(...(await this.writeChunk(sources.slice(i, i + CHUNK))));
    return produced;
  }

  private async writeChunk(sources: ObjectSource[]): Promise<string[]> {
    if (sources.length === 0) return [];
    const existing = await this.db
      .selectFrom('stix_objects')
      .select(['id', 'source_hash', 'modified'])
      .where('id', 'in', sources.map((s) => s.id))
      .execute();
    const known = new Map(existing.map((row) => [row.id, row]));
    const produced: string[] = [];
    const rows = [];
    for (const source of sources) {
      const previous = known.get(source.id);
      // A new version's `modified` must be later than the last one's (STIX 2.1 section 3.2).
      const modified = previous ? laterStixTime(this.now, stixTimeAfter(previous.modified)) : this.now;
      const object = renderOrSkip(source, modified);
      if (object === undefined) continue;
      produced.push(source.id);
      const body = JSON.stringify(object);
      const hash = versionHash(object.type, body);
      if (previous?.source_hash === hash) continue;
      rows.push({
        id: source.id,
        type: object.type,
        modified: object.modified,
        date_added: this.clock.next(),
        body,
        iid: source.iid,
        tid: source.tid,
        source_hash: hash,
      });
    }
    if (rows.length > 0) {
      await this.db
        .insertInto('stix_objects')
        .values(rows)
        .onConflict((oc) =>
          oc.column('id').doUpdateSet((eb) => ({
            modified: eb.ref('excluded.modified'),
            date_added: eb.ref('excluded.date_added'),
            body: eb.ref('excluded.body'),
            source_hash: eb.ref('excluded.source_hash'),
          })),
        )
        .execute();
    }
    return produced;
  }

  /** Removes objects of these records that are no longer produced (a threat whose STIX type changed). */
  async removeStale(column: 'tid' | 'iid', keys: number[], current: Set<string>, type?: string): Promise<void> {
    for (let i = 0; i < keys.length; i += CHUNK) {
      let query = this.db.selectFrom('stix_objects').select('id').where(column, 'in', keys.slice(i, i + CHUNK));
      if (type !== undefined) query = query.where('type', '=', type);
      const rows = await query.execute();
      const stale = rows.map((r) => r.id).filter((id) => !current.has(id));
      if (stale.length === 0) continue;
      await this.db.deleteFrom('stix_objects').where('id', 'in', stale).execute();
    }
  }
}

async function iidsOfFeeds(db: Kysely<Database>, fids: Set<number>): Promise<number[]> {
  if (fids.size === 0) return [];
  const rows = await db.selectFrom('feed_links').select('iid').where('fid', 'in', [...fids]).execute();
  return rows.map((r) => Number(r.iid));
}

/** Threat links to render, by threat: all links of changed threats, plus the links that changed. */
function linksByThreat(changes: ImportChanges): Map<number, Set<number> | 'all'> {
  const byTid = new Map<number, Set<number> | 'all'>();
  for (const tid of changes.threats) byTid.set(tid, 'all');
  for (const { iid, tid } of changes.threatLinks) {
    const entry = byTid.get(tid);
    if (entry === 'all') continue;
    if (entry) entry.add(iid);
    else byTid.set(tid, new Set([iid]));
  }
  return byTid;
}

async function syncObjects(db: Kysely<Database>, changes: ImportChanges, writer: VersionWriter): Promise<void> {
  if (changes.feeds.size > 0 || changes.threats.size > 0) await writer.write(await renderIdentities(db));

  const tids = [...changes.threats].sort((a, b) => a - b);
  const threatIds = await writer.write(await renderThreats(db, tids));

  const iids = [...new Set([...changes.indicators, ...changes.feedLinkIids, ...(await iidsOfFeeds(db, changes.feeds))])].sort((a, b) => a - b);
  const indicatorIds = new Set<string>();
  for (let i = 0; i < iids.length; i += CHUNK) {
    const chunk = iids.slice(i, i + CHUNK);
    for (const id of await writer.write(await renderIndicators(db, chunk))) indicatorIds.add(id);
  }
  // An indicator that lost its STIX form (its type changed to one without a pattern) is withdrawn.
  const changedIids = [...changes.indicators].sort((a, b) => a - b);
  await writer.removeStale('iid', changedIids, indicatorIds, 'indicator');

  const current = new Set(threatIds);
  for (const [tid, linked] of linksByThreat(changes)) {
    const list = linked === 'all' ? 'all' : [...linked].sort((a, b) => a - b);
    for (let i = 0; i < (list === 'all' ? 1 : list.length); i += CHUNK) {
      const rendered = await renderRelationships(db, tid, list === 'all' ? 'all' : list.slice(i, i + CHUNK));
      for (const id of await writer.write(rendered)) current.add(id);
    }
  }
  // A threat whose category moved it to another SDO type has a new id, and so do its relationships.
  await writer.removeStale('tid', tids, current);
  // Relationships of withdrawn indicators go with them.
  await writer.removeStale('iid', changedIids.filter((iid) => !indicatorIds.has(stixIdForIndicator(iid))), new Set(), 'relationship');
}

/** The import hook: new object versions, then collection membership, all in the import's transaction. */
export function createStixSync(collections: readonly CollectionConfig[]): ImportHook {
  return async (db, changes, clock) => {
    if (!anyChange(changes)) return;
    const dates = await DateAddedClock.open(db, clock.now());
    const writer = new VersionWriter(db, dates, clock.now());
    await syncObjects(db, changes, writer);
    await refreshCollections(db, collections, dates);
    await writeMeta(db, FINGERPRINT_KEY, collectionsFingerprint(collections));
    await dates.save(db);
  };
}

/** At start-up: rebuilds memberships when the configured collections differ from the stored ones. */
export async function syncCollectionsWithConfig(db: Kysely<Database>, collections: readonly CollectionConfig[], clock: Clock): Promise<boolean> {
  const fingerprint = collectionsFingerprint(collections);
  const previous = await readMeta(db, FINGERPRINT_KEY);
  if (previous === fingerprint) return false;
  await db.transaction().execute(async (trx) => {
    const dates = await DateAddedClock.open(trx, clock.now());
    if (collectionsNowUnfiltered(previous, collections).length > 0) await restampObjects(trx, dates);
    await dropStaleMemberships(trx, collections);
    await refreshCollections(trx, collections, dates);
    await writeMeta(trx, FINGERPRINT_KEY, fingerprint);
    await dates.save(trx);
  });
  return true;
}

