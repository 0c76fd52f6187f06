// Keeps the STIX objects and collection memberships in step with the data, inside each import's transaction.
import { sql, type Kysely } from 'kysely';
import type { Clock } from '../../clock.js';
import type { CollectionConfig } from '../../config.js';
import { isRetired, laterStixTime, stixIdForIndicatorLink, stixIdForThreat, stixIdType, stixTimeAfter, stixTimeFromDate } from '../../stix/index.js';
import type { Threat } from '../../domain.js';
import { collectionsFingerprint, collectionsNowUnfiltered, dropStaleMemberships, refreshCollections, restampObjects } from './collection-views.js';
import { DateAddedClock } from './date-added-clock.js';
import { anyChange, anyObserved } from '../changes/change-set.js';
import type { ChangeSet } from '../changes/change-set.js';
import { readMeta, writeMeta } from '../db/meta.js';
import type { Database } from '../db/schema.js';
import { identitySources, indicatorSources, linkSources, reactivationSource, threatSource, type ObjectSource } from '../../stix/project-records.js';
import { CHUNK, readIndicators, readIndicatorsAfter, readLinksAfter, readOrganizations, readStagedLinks, readThreats } from './stix-rows.js';
import {
  dateVersionRows,
  renderVersion,
  VERSION_COLUMNS,
  versionRowIids,
  versionRows,
  type RenderedVersion,
  type RenderJob,
  type VersionRows,
} from './version-rows.js';
import { inThreadRenderer, RenderThread, type Renderer } from './render-thread.js';
import { LINK_KIND } from '../contract/write-batch.js';
import { bulkInsertRows, type BulkInsert } from '../db/bulk-insert.js';
import { liveObjects, revokeObjects, type StoredObject } from './stix-revocation.js';
import { analyzeGrown, analyzeTemporary, takeWriteLock, withoutIndexes, type Dialect } from '../db/dialect.js';
import { createRenderTable, dropRenderTables } from './render-tables.js';
import { syncTechniques, techniquesPending } from './technique-sync.js';
import { syncObservations } from './observation-sync.js';

const FINGERPRINT_KEY = 'collections_fingerprint';

const OBJECT_UPSERT: BulkInsert = {
  table: 'stix_objects',
  columns: VERSION_COLUMNS,
  tail: 'on conflict (id) do update set modified = excluded.modified, date_added = excluded.date_added, body = excluded.body, source_hash = excluded.source_hash',
};
/** Into a fresh store every object is new (and the unique index on ids may be away, see deferObjectIndexes). */
const OBJECT_INSERT: BulkInsert = { ...OBJECT_UPSERT, tail: '' };

/** Writes a new version of each object whose content changed; equal content is left alone. */
class VersionWriter {
  /** `modified` of the versions this import makes (STIX time of the import's clock). */
  readonly now: string;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
    private readonly clock: DateAddedClock,
    nowMs: number,
    /** The store holds no objects yet: there is no earlier version to look up. */
    private readonly fresh: boolean,
    /** The write's changes, whose indicators' earlier rows a revoked version repeats; none outside a write. */
    private readonly changes: ChangeSet | undefined,
  ) {
    this.now = stixTimeFromDate(new Date(nowMs));
  }

  /** Returns the sources that have a STIX form (changed or not). */
  async write(sources: ObjectSource[]): Promise<ObjectSource[]> {
    const produced: ObjectSource[] = [];
    for (let i = 0; i < sources.length; i += CHUNK) produced.push(...(await this.writeChunk(sources.slice(i, i + CHUNK))));
    return produced;
  }

  /** Stores versions (rendered here or by a render worker), each dated as it comes. */
  async store(rows: VersionRows): Promise<void> {
    dateVersionRows(rows, () => this.clock.next());
    await bulkInsertRows(this.db, this.dialect, this.fresh ? OBJECT_INSERT : OBJECT_UPSERT, rows.values, rows.count);
  }

  /** Publishes the final, revoked version of each object (stix-revocation.ts). */
  async revoke(objects: readonly StoredObject[]): Promise<void> {
    await revokeObjects(this.db, objects, this.now, this.clock, this.changes);
  }

  private async writeChunk(sources: ObjectSource[]): Promise<ObjectSource[]> {
    if (sources.length === 0) return [];
    const existing = this.fresh
      ? []
      : await this.db
          .selectFrom('stix_objects')
          .select(['id', 'source_hash', 'modified', 'revoked'])
          .where('id', 'in', sources.map((s) => s.id))
          .execute();
    const known = new Map(existing.map((row) => [row.id, row]));
    const produced: ObjectSource[] = [];
    const changed: RenderedVersion[] = [];
    for (const source of sources) {
      const previous = known.get(source.id);
      // Revocation is final (STIX 2.1 §3.2): a record whose object was revoked is not published
      // under that id again (docs/stix-mapping.md, "Objects that leave the export").
      if (previous !== undefined && Number(previous.revoked) === 1) continue;
      // A new version's `modified` must be later than the last one's (STIX 2.1 section 3.2).
      const modified = previous ? laterStixTime(this.now, stixTimeAfter(previous.modified)) : this.now;
      const version = renderVersion(source, modified);
      if (version === undefined) continue;
      produced.push(source);
      if (previous?.source_hash !== version.source_hash) changed.push(version);
    }
    await this.store(versionRows(changed));
    return produced;
  }
}

/**
 * The indicators to render, in pages of ascending iid: those changed, those with new or changed
 * feed links, and every indicator of a changed feed (its organization names created_by_ref).
 */
async function stageIndicators(db: Kysely<Database>, dialect: Dialect, changes: ChangeSet): Promise<void> {
  await createRenderTable(db, dialect, 'render_iids');
  // Into the empty table, each changed key once: no conflict to check.
  await sql`insert into render_iids (iid) ${changes.changedIds('indicators')}`.execute(db);
  await sql`insert into render_iids (iid) select iid from (${changes.links('changed', LINK_KIND.feed)}) as s where true on conflict do nothing`.execute(db);
  // Most writes change no feed record (a pull's stamps are no change of it): no statement for none.
  if (changes.feeds > 0) {
    await sql`insert into render_iids (iid) select fl.iid from feed_links fl where fl.fid in (${changes.changedIds('feeds')}) on conflict do nothing`.execute(db);
  }
  // Looked up by iid among the STIX objects next (syncNewIndicators).
  await analyzeTemporary(db, dialect, ['render_iids']);
}

/** The threat links to render: those new or changed, and every link of a changed threat. */
async function stageLinks(db: Kysely<Database>, dialect: Dialect, changes: ChangeSet): Promise<void> {
  await createRenderTable(db, dialect, 'render_links');
  await sql`insert into render_links (tid, iid) select owner, iid from (${changes.links('changed', LINK_KIND.threat)}) as s where true on conflict do nothing`.execute(db);
  if (changes.threats > 0) {
    await sql`insert into render_links (tid, iid) select tl.tid, tl.iid from threat_links tl where tl.tid in (${changes.changedIds('threats')}) on conflict do nothing`.execute(db);
  }
}

/**
 * Indicators new to the export (no object has their iid), when there are many (a first pull of a
 * large list into a store that already has its feed): rendered on a worker thread while this one
 * writes, as into a fresh store, without looking up earlier versions that cannot exist. They leave
 * render_iids; the rest go the way of every other import. An indicator without a STIX form has no
 * object to withdraw.
 */
async function syncNewIndicators(db: Kysely<Database>, dialect: Dialect, writer: VersionWriter, options: StixSyncOptions): Promise<void> {
  await createRenderTable(db, dialect, 'render_new');
  await sql`insert into render_new (iid) select r.iid from render_iids r
    where not exists (select 1 from stix_objects s where s.iid = r.iid)`.execute(db);
  const { rows } = await sql<{ n: number }>`select count(*) as n from render_new`.execute(db);
  if (Number(rows[0]?.n ?? 0) < (options.renderThreadFrom ?? RENDER_THREAD_FROM)) {
    await dropRenderTables(db, ['render_new']);
    return;
  }
  await sql`delete from render_iids where iid in (select iid from render_new)`.execute(db);
  const modified = writer.now;
  async function* jobs(): AsyncGenerator<RenderJob> {
    for (let after = Number.MIN_SAFE_INTEGER; ; ) {
      const { rows: page } = await sql<{ iid: number }>`select iid from render_new where iid > ${after} order by iid limit ${CHUNK}`.execute(db);
      if (page.length === 0) return;
      const iids = page.map((r) => Number(r.iid));
      after = iids.at(-1)!;
      yield { kind: 'indicators', rows: await readIndicators(db, iids), modified };
    }
  }
  const thread = new RenderThread();
  try {
    await renderAndStore(thread, writer, jobs());
  } finally {
    await thread.close();
  }
  await dropRenderTables(db, ['render_new']);
}

async function syncIndicators(db: Kysely<Database>, writer: VersionWriter): Promise<void> {
  for (let after = 0; ; ) {
    const { rows } = await sql<{ iid: number }>`select iid from render_iids where iid > ${after} order by iid limit ${CHUNK}`.execute(db);
    if (rows.length === 0) return;
    const iids = rows.map((r) => Number(r.iid));
    after = iids.at(-1)!;
    const kept = new Set((await writer.write(indicatorSources(await readIndicators(db, iids)))).map((s) => s.iid));
    // An indicator that lost its STIX form (a value that is no address of its new type) leaves
    // the export: its object is revoked, and its relationships and its sighting with it.
    const withdrawn = iids.filter((iid) => !kept.has(iid));
    if (withdrawn.length > 0) {
      await writer.revoke(await liveObjects(db, sql`s.iid in (${sql.join(withdrawn)}) and s.type in ('indicator', 'relationship', 'sighting')`));
    }
  }
}

async function syncRelationships(db: Kysely<Database>, writer: VersionWriter): Promise<void> {
  for (let after = { tid: 0, iid: 0 }; ; ) {
    const page = await readStagedLinks(db, after, CHUNK);
    await writer.write(linkSources(page.rows));
    if (page.last === null) return;
    after = page.last;
  }
}

/** Pages given to the renderer and not yet stored, at most: bounds the rendered rows held in memory. */
const IN_FLIGHT = 8;

/**
 * Renders the jobs (on the worker: RenderThread) while the pages before
 * are stored, in job order. `stored` runs after each page is written, with its job and the versions
 * it gave.
 */
async function renderAndStore(
  thread: Renderer,
  writer: VersionWriter,
  jobs: AsyncIterable<RenderJob>,
  stored?: (job: RenderJob, rows: VersionRows) => void,
): Promise<void> {
  const inFlight: { job: RenderJob; versions: Promise<VersionRows>; done: boolean }[] = [];
  const storeNext = async () => {
    const { job, versions } = inFlight.shift()!;
    const rendered = await versions;
    await writer.store(rendered);
    stored?.(job, rendered);
  };
  for await (const job of jobs) {
    const entry = { job, versions: thread.render(job), done: false };
    // Awaited in turn below; until then a failure must not count as unhandled.
    entry.versions.then(
      () => (entry.done = true),
      () => (entry.done = true),
    );
    inFlight.push(entry);
    while (inFlight[0]?.done) await storeNext();
    if (inFlight.length >= IN_FLIGHT) await storeNext();
  }
  while (inFlight.length > 0) await storeNext();
}

/**
 * Into a fresh store every record is new: the indicators and threat links are read straight from
 * their tables, in key order, without staging which to render, and rendered on a worker thread
 * while the import's thread reads and writes the database. Indicators without a STIX form are few
 * (types without a pattern, malformed values); their iids are kept to leave out their links.
 */
async function syncAllIndicatorsAndLinks(db: Kysely<Database>, writer: VersionWriter, thread: Renderer): Promise<void> {
  const modified = writer.now;
  const withoutObject = new Set<number>();
  try {
    async function* indicatorJobs(): AsyncGenerator<RenderJob> {
      for (let after: number | null = Number.MIN_SAFE_INTEGER; after !== null; ) {
        const { rows, last } = await readIndicatorsAfter(db, after, CHUNK);
        if (rows.length > 0) yield { kind: 'indicators', rows, modified };
        after = last;
      }
    }
    await renderAndStore(thread, writer, indicatorJobs(), (job, rows) => {
      const kept = new Set(versionRowIids(rows));
      for (const row of job.rows) if (!kept.has(Number(row.iid))) withoutObject.add(Number(row.iid));
    });
    async function* linkJobs(): AsyncGenerator<RenderJob> {
      for (let after: { tid: number; iid: number } | null = { tid: 0, iid: 0 }; after !== null; ) {
        const { rows, last } = await readLinksAfter(db, after, CHUNK);
        const rendered = rows.filter((row) => !withoutObject.has(Number(row.iid)));
        if (rendered.length > 0) yield { kind: 'links', rows: rendered, modified };
        after = last;
      }
    }
    await renderAndStore(thread, writer, linkJobs());
  } finally {
    await thread.close();
  }
}

/**
 * A threat whose category moved it to another SDO type has a new id, and so does each of its
 * relationships (all written again by this import): the objects under the old ids are revoked.
 * A threat with no STIX form any more has all of its objects revoked.
 */
async function revokeReplacedThreats(
  db: Kysely<Database>,
  writer: VersionWriter,
  tids: number[],
  current: Map<number, string>,
  generations: Map<number, number>,
): Promise<void> {
  for (let i = 0; i < tids.length; i += CHUNK) {
    const chunk = tids.slice(i, i + CHUNK);
    const gone: StoredObject[] = [];
    const replaced = new Set<number>();
    for (const object of await liveObjects(db, sql`s.tid in (${sql.join(chunk)}) and s.iid is null and s.type <> 'relationship'`)) {
      if (current.get(object.tid!) === object.id) continue;
      replaced.add(object.tid!);
      // A retired threat's object already says `revoked` (its last version): no later version may follow.
      if (!/"revoked":true\b/.test(object.body)) gone.push(object);
    }
    if (replaced.size > 0) {
      // A relationship stays when its id names the threat's current SDO type.
      const relationships = await liveObjects(db, sql`s.tid in (${sql.join([...replaced])}) and s.type = 'relationship'`);
      for (const r of relationships) {
        const now = current.get(r.tid!);
        // The reactivation relationship (no indicator) stays: it points from the current object back.
        if (r.iid === null && now !== undefined) continue;
        if (now === undefined || stixIdForIndicatorLink(r.iid!, r.tid!, stixIdType(now), generations.get(r.tid!) ?? 0) !== r.id) gone.push(r);
      }
    }
    await writer.revoke(gone);
  }
}

/**
 * Each threat's generation (its reactivations after a published retirement), counted one up for
 * an active threat whose object under its current id is revoked: retired (a threat's object says
 * `revoked`) or withdrawn. Revocation is final (STIX 2.1 §3.2), so the threat comes back as a new
 * object, and its relationships under new ids; the old relationships are revoked by
 * revokeReplacedThreats, and a `derived-from` relationship points from the new object to the old.
 */
async function reactivateThreats(
  db: Kysely<Database>,
  threats: readonly Threat[],
): Promise<{ generations: Map<number, number>; reactivated: { tid: number; generation: number; currentId: string; previousId: string }[] }> {
  const generations = new Map<number, number>();
  const reactivated: { tid: number; generation: number; currentId: string; previousId: string }[] = [];
  for (let i = 0; i < threats.length; i += CHUNK) {
    const chunk = threats.slice(i, i + CHUNK);
    const rows = await db.selectFrom('threats').select(['tid', 'stix_generation']).where('tid', 'in', chunk.map((t) => t.tid)).execute();
    for (const r of rows) generations.set(Number(r.tid), Number(r.stix_generation));
    const active = chunk.filter((t) => !isRetired(t));
    if (active.length === 0) continue;
    const ids = new Map(active.map((t) => [stixIdForThreat(t, generations.get(t.tid) ?? 0), t]));
    const stored = await db.selectFrom('stix_objects').select(['id', 'revoked', 'body']).where('id', 'in', [...ids.keys()]).execute();
    for (const object of stored) {
      if (Number(object.revoked) !== 1 && !/"revoked":true\b/.test(object.body)) continue;
      const threat = ids.get(object.id)!;
      const generation = (generations.get(threat.tid) ?? 0) + 1;
      generations.set(threat.tid, generation);
      await db.updateTable('threats').set({ stix_generation: generation }).where('tid', '=', threat.tid).execute();
      reactivated.push({ tid: threat.tid, generation, currentId: stixIdForThreat(threat, generation), previousId: object.id });
    }
  }
  return { generations, reactivated };
}

async function syncObjects(
  db: Kysely<Database>,
  dialect: Dialect,
  changes: ChangeSet,
  writer: VersionWriter,
  options: StixSyncOptions,
): Promise<void> {
  if (changes.feeds > 0 || changes.threats > 0) await writer.write(identitySources(await readOrganizations(db, writer.now)));
  const tids = (await sql<{ id: number }>`select id from (${changes.changedIds('threats')}) as c order by id`.execute(db)).rows.map((r) => Number(r.id));
  const records = await readThreats(db, tids);
  const { generations, reactivated } = await reactivateThreats(db, records);
  const threats = await writer.write(records.map((t) => threatSource(t, generations.get(t.tid) ?? 0)));
  await writer.write(reactivated.map((r) => reactivationSource(r.tid, r.generation, r.currentId, r.previousId)));
  await syncTechniques(db, writer, { records, objectIds: new Map(threats.map((t) => [t.tid!, t.id])), generations }, changes.fresh);
  if (changes.fresh) {
    // Nothing was there before: no earlier object to replace or withdraw.
    const onThread = changes.indicators >= (options.renderThreadFrom ?? RENDER_THREAD_FROM);
    await syncAllIndicatorsAndLinks(db, writer, onThread ? new RenderThread() : inThreadRenderer());
    return;
  }
  await stageIndicators(db, dialect, changes);
  await syncNewIndicators(db, dialect, writer, options);
  await syncIndicators(db, writer);
  await stageLinks(db, dialect, changes);
  // The link pages join the staged links to the objects just written: both planned at their new sizes.
  await analyzeTemporary(db, dialect, ['render_links']);
  await analyzeGrown(db, dialect, changes.threatLinks + changes.indicators, ['stix_objects']);
  await syncRelationships(db, writer);
  await revokeReplacedThreats(db, writer, tids, new Map(threats.map((t) => [t.tid!, t.id])), generations);
  await dropRenderTables(db);
}

/** A fresh import of this many indicators renders them on a worker thread (starting one costs a few ms). */
const RENDER_THREAD_FROM = 20_000;

export interface StixSyncOptions {
  /** The fewest indicators of a fresh import that are rendered on a worker thread (WritePaths). */
  renderThreadFrom?: number;
  /** Sighted indicators get a STIX sighting (config `stix.sightings`, docs/stix-mapping.md); default true. */
  sightings?: boolean;
}

/** The STIX step of every import: new object versions, then collection membership, in the import's transaction. */
export type StixSync = (trx: Kysely<Database>, changes: ChangeSet, clock: Clock, dialect: Dialect) => Promise<void>;

export function createStixSync(collections: readonly CollectionConfig[], options: StixSyncOptions = {}): StixSync {
  return async (db, changes, clock, dialect) => {
    const changed = anyChange(changes);
    const observed = anyObserved(changes);
    if (!changed && !observed) return;
    const dates = await DateAddedClock.open(db, clock.now());
    const writer = new VersionWriter(db, dialect, dates, clock.now(), changes.fresh, changes);
    const sync = async () => {
      if (changed) await syncObjects(db, dialect, changes, writer, options);
      if (observed) await syncObservations(db, changes, writer, options.sightings ?? true);
    };
    // STIX ids are UUIDs: into an empty store, each object written with the indexes of stix_objects
    // in place would update them at random pages, so they are built after, each in one sort.
    await (changes.fresh ? withoutIndexes(db, dialect, { table: 'stix_objects' }, sync) : sync());
    // An observation changes no record or link: the views select what they did (refreshCollections).
    await reconcileCollections(db, collections, dates, !changed);
    await dates.save(db);
  };
}

/**
 * Brings every collection's membership in line with the configured views, in the caller's
 * transaction: when the views differ from those last reconciled (the stored fingerprint), objects
 * are restamped for a view that turned unfiltered and stale memberships dropped, before the views
 * are refreshed. Every write runs it, and so does start-up: a write under a changed configuration
 * (a cron's `feeds pull` before `serve` restarts) cannot record the new fingerprint without the
 * rebuild, which start-up would then skip.
 */
async function reconcileCollections(db: Kysely<Database>, collections: readonly CollectionConfig[], dates: DateAddedClock, newVersionsOnly = false): Promise<boolean> {
  const fingerprint = collectionsFingerprint(collections);
  const previous = await readMeta(db, FINGERPRINT_KEY);
  const changed = previous !== fingerprint;
  if (changed) {
    if (collectionsNowUnfiltered(previous, collections).length > 0) await restampObjects(db, dates);
    await dropStaleMemberships(db, collections);
  }
  await refreshCollections(db, collections, dates, newVersionsOnly && !changed);
  if (changed) await writeMeta(db, FINGERPRINT_KEY, fingerprint);
  return changed;
}

/**
 * A store upgraded past migration 0011 publishes the attack-patterns of its threats' techniques and
 * their relationships once, at start-up, without waiting for an import (technique-sync.ts). Imports
 * are serialized on PostgreSQL by their lock, so of several instances starting together one does it.
 */
async function publishPendingTechniques(db: Kysely<Database>, dialect: Dialect, collections: readonly CollectionConfig[], clock: Clock): Promise<void> {
  if (!(await techniquesPending(db))) return;
  await db.transaction().execute(async (trx) => {
    await takeWriteLock(trx, dialect);
    if (!(await techniquesPending(trx))) return;
    const dates = await DateAddedClock.open(trx, clock.now());
    const writer = new VersionWriter(trx, dialect, dates, clock.now(), false, undefined);
    await syncTechniques(trx, writer, { records: [], objectIds: new Map(), generations: new Map() }, false);
    await refreshCollections(trx, collections, dates);
    await dates.save(trx);
  });
}

/**
 * At start-up: publishes what an upgrade left unpublished (publishPendingTechniques), then rebuilds
 * memberships when the configured collections differ from the stored ones; true if it rebuilt them.
 */
export async function syncCollectionsWithConfig(db: Kysely<Database>, dialect: Dialect, collections: readonly CollectionConfig[], clock: Clock): Promise<boolean> {
  await publishPendingTechniques(db, dialect, collections, clock);
  if ((await readMeta(db, FINGERPRINT_KEY)) === collectionsFingerprint(collections)) return false;
  return db.transaction().execute(async (trx) => {
    // As a write's transaction does (apply.ts): serialized with writes, the lock taken before the first read.
    await takeWriteLock(trx, dialect);
    const dates = await DateAddedClock.open(trx, clock.now());
    const changed = await reconcileCollections(trx, collections, dates);
    await dates.save(trx);
    return changed;
  });
}

