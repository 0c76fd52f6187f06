// Reads of feed health and provenance (docs/interface.md section 12): a feed's runs, what each feed's state is computed
// from, and the facts that say why a value is where it is. Every read is on an index.
import type { Kysely, Selectable } from 'kysely';
import { formatStamp } from '../../clock.js';
import type { Risk } from '../../domain.js';
import { RISK_RANKS } from '../contract/commands.js';
import type { CollectionRef } from '../contract/records.js';
import { isUnfiltered } from '../publish/collection-views.js';
import { findIndicatorRow, retirementOf } from './indicator-queries.js';
import type { FeedHealthFacts, FeedRun, RejectionReason, RunOutcome, RunTrigger, ValueFacts } from '../contract/runs.js';
import type { Database, FeedRunTable } from '../db/schema.js';

const nullableNumber = (value: number | string | bigint | null): number | null => (value === null ? null : Number(value));

function toRun(row: Selectable<FeedRunTable>): FeedRun {
  const started = Number(row.started_ms);
  const finished = Number(row.finished_ms);
  return {
    run: Number(row.run),
    fid: Number(row.fid),
    started: formatStamp(started),
    finished: formatStamp(finished),
    seconds: Math.round((finished - started) / 100) / 10,
    trigger: row.run_trigger as RunTrigger,
    outcome: row.outcome as RunOutcome,
    http_status: nullableNumber(row.http_status),
    bytes: nullableNumber(row.bytes),
    values: nullableNumber(row.value_count),
    new_indicators: nullableNumber(row.new_indicators),
    new_links: nullableNumber(row.new_links),
    unlisted: nullableNumber(row.unlisted),
    churn: row.churn === null ? null : Number(row.churn),
    rejected: { unparseable: Number(row.rejected_unparseable), allowlisted: Number(row.rejected_allowlisted) },
    threats: nullableNumber(row.threats),
    error: row.error,
    etag: row.etag,
    last_modified: row.last_modified,
  };
}

/** The feed's latest runs, newest first (feed_runs_fid, backwards). */
export async function listFeedRuns(db: Kysely<Database>, fid: number, limit: number): Promise<FeedRun[]> {
  const rows = await db.selectFrom('feed_runs').selectAll().where('fid', '=', fid).orderBy('run', 'desc').limit(limit).execute();
  return rows.map(toRun);
}

/** The feed's latest run, or its latest that did not fail. */
async function latestRun(db: Kysely<Database>, fid: number, good: boolean): Promise<FeedRun | null> {
  let query = db.selectFrom('feed_runs').selectAll().where('fid', '=', fid);
  if (good) query = query.where('outcome', '<>', 'failed');
  const row = await query.orderBy('run', 'desc').limit(1).executeTakeFirst();
  return row === undefined ? null : toRun(row);
}

/**
 * One entry per feed that has a source or runs (a feed whose source was removed keeps its history:
 * it is paused), ascending fid. The listing count comes from source_listings' key; the good run is
 * usually the last, and otherwise a short walk back through the failures. With `fid`, that feed's
 * entry alone (none when it has neither), so one feed's page reads one feed's runs.
 */
export async function feedHealthFacts(db: Kysely<Database>, fid?: number): Promise<FeedHealthFacts[]> {
  let query = db
    .selectFrom('feeds as f')
    .leftJoin('feed_sources as s', 's.fid', 'f.fid')
    .select(['f.fid', 'f.name', 'f.organization', 'f.schedule', 'f.stamp_pulled', 'f.stamp_modified', 's.definition'])
    .select((eb) => eb.selectFrom('source_listings as l').whereRef('l.fid', '=', 'f.fid').select(eb.fn.countAll<number>().as('n')).as('listed'))
    .where((eb) => eb.or([eb('s.fid', 'is not', null), eb.exists(eb.selectFrom('feed_runs as r').select('r.run').whereRef('r.fid', '=', 'f.fid'))]));
  if (fid !== undefined) query = query.where('f.fid', '=', fid);
  const rows = await query.orderBy('f.fid').execute();
  const facts: FeedHealthFacts[] = [];
  for (const row of rows) {
    const id = Number(row.fid);
    const lastRun = await latestRun(db, id, false);
    facts.push({
      fid: id,
      feed: row.name,
      organization: row.organization,
      schedule: row.schedule,
      definition: row.definition,
      stamp_pulled: row.stamp_pulled,
      stamp_modified: row.stamp_modified,
      listed: Number(row.listed ?? 0),
      last_run: lastRun,
      last_good_run: lastRun === null || lastRun.outcome !== 'failed' ? lastRun : await latestRun(db, id, true),
    });
  }
  return facts;
}

/** What the store knows of a value: `lookup` as the indicator lookup takes it (queries/indicator-queries.ts). */
export async function findValueFacts(db: Kysely<Database>, collections: readonly CollectionRef[], lookup: { value: string; types: readonly string[]; asGiven: string }): Promise<ValueFacts> {
  const values = lookup.asGiven === lookup.value ? [lookup.value] : [lookup.value, lookup.asGiven];
  const rejection = await db
    .selectFrom('pull_rejections as r')
    .innerJoin('feeds as f', 'f.fid', 'r.fid')
    .select(['r.fid', 'f.name', 'r.at', 'r.reason'])
    .where('r.value', 'in', values)
    .orderBy('r.at', 'desc')
    .orderBy('r.run', 'desc')
    .limit(1)
    .executeTakeFirst();
  const facts: ValueFacts = {
    indicator: null,
    feeds: [],
    threats: [],
    rejection: rejection === undefined ? null : { fid: Number(rejection.fid), feed: rejection.name, at: rejection.at, reason: rejection.reason as RejectionReason },
    collections: [],
  };
  const row = await findIndicatorRow(db, lookup.value, lookup.types, lookup.asGiven);
  if (row === undefined) return facts;
  const iid = Number(row.iid);
  facts.indicator = {
    iid,
    type: row.type,
    value: row.value,
    risk: row.risk as Risk,
    ...retirementOf(row),
    stamp_added: row.stamp_added,
    stamp_seen: row.stamp_seen,
  };
  facts.feeds = await valueFeeds(db, iid);
  facts.threats = await valueThreats(db, iid);
  facts.collections = await collectionsHolding(db, collections, iid);
  return facts;
}

/**
 * The configured collections whose objects hold the indicator now: an unfiltered one holds every
 * object that is not revoked, a filtered one its memberships (a probe of collection_objects' key each).
 */
async function collectionsHolding(db: Kysely<Database>, collections: readonly CollectionRef[], iid: number): Promise<string[]> {
  const objects = await db.selectFrom('stix_objects').select('id').where('iid', '=', iid).where('type', '=', 'indicator').where('revoked', '=', 0).execute();
  const ids = objects.map((o) => o.id);
  if (ids.length === 0) return [];
  const holding: string[] = [];
  for (const collection of collections) {
    const member =
      isUnfiltered(collection.filter) ||
      (await db.selectFrom('collection_objects').select('id').where('collection', '=', collection.id).where('id', 'in', ids).limit(1).executeTakeFirst()) !== undefined;
    if (member) holding.push(collection.id);
  }
  return holding;
}

const riskOfRank = (rank: number | string | null): Risk | null => (rank === null ? null : ((RISK_RANKS[Number(rank)] ?? 'unknown') as Risk));

/**
 * Each feed linked to the indicator (feed_links_iid): listing it now (source_listings) with its
 * latest good pull, or before (past_listings) with the last pull that listed it; a link no pull
 * ever listed is an import's.
 */
async function valueFeeds(db: Kysely<Database>, iid: number): Promise<ValueFacts['feeds']> {
  const rows = await db
    .selectFrom('feed_links as l')
    .innerJoin('feeds as f', 'f.fid', 'l.fid')
    .leftJoin('source_listings as s', (join) => join.onRef('s.fid', '=', 'l.fid').onRef('s.iid', '=', 'l.iid'))
    .leftJoin('past_listings as p', (join) => join.onRef('p.fid', '=', 'l.fid').onRef('p.iid', '=', 'l.iid'))
    .select(['l.fid', 'f.name', 'f.organization', 'f.stamp_pulled', 'l.stamp_linked', 's.risk as now_risk', 'p.risk as past_risk', 'p.last_listed'])
    .where('l.iid', '=', iid)
    .orderBy('l.fid')
    .execute();
  return rows.map((r) => {
    const listedNow = r.now_risk !== null;
    const pulled = listedNow || r.past_risk !== null;
    return {
      fid: Number(r.fid),
      feed: r.name,
      organization: r.organization,
      listed_now: listedNow,
      first_listed: r.stamp_linked,
      last_listed: listedNow ? r.stamp_pulled : (r.last_listed ?? null),
      risk: riskOfRank(listedNow ? r.now_risk : r.past_risk),
      linked_by: pulled ? 'pull' : 'import',
    };
  });
}

/** Each threat linked to the indicator (threat_links_iid), with the feed whose pull made the link, if one did. */
async function valueThreats(db: Kysely<Database>, iid: number): Promise<ValueFacts['threats']> {
  const rows = await db
    .selectFrom('threat_links as l')
    .innerJoin('threats as t', 't.tid', 'l.tid')
    .leftJoin('threat_link_sources as s', (join) => join.onRef('s.iid', '=', 'l.iid').onRef('s.tid', '=', 'l.tid'))
    .leftJoin('feeds as f', 'f.fid', 's.fid')
    .select(['l.tid', 't.name', 't.retired', 'l.stamp_linked', 's.fid', 'f.name as feed'])
    .where('l.iid', '=', iid)
    .orderBy('l.tid')
    .execute();
  return rows.map((r) => ({
    tid: Number(r.tid),
    name: r.name,
    retired: Number(r.retired ?? 0) === 1,
    stamp_linked: r.stamp_linked,
    linked_by: r.fid === null ? null : { fid: Number(r.fid), feed: r.feed ?? '' },
  }));
}
