// Reads of observations (docs/observations.md): an indicator's or a threat's latest sightings, one
// range of its index read from the newest; their counters, kept on the record as they arrive; and
// submissions, each readable only by the key that made it.
import type { Kysely } from 'kysely';
import type { ObservationCounts, SightingRecord, SightingTarget, SubmissionRecord } from '../contract/observations.js';
import type { Database } from '../db/schema.js';
import { toSightingRecord, toSubmissionRecord } from '../ingest/observation-writer.js';

/** The most rows one read gives, whatever the caller asks: a page, not a dump. */
const MAX_PAGE = 1000;

const pageSize = (limit: number) => (Number.isSafeInteger(limit) && limit > 0 ? Math.min(limit, MAX_PAGE) : 0);

/** The key a target names, when it can be one: a key no row has is no query's business (PostgreSQL refuses a fraction as a bigint). */
const keyOf = (target: SightingTarget): number | undefined => {
  const key = 'iid' in target ? target.iid : target.tid;
  return Number.isSafeInteger(key) ? key : undefined;
};

/**
 * A page of a target's sightings, newest first: one range of sightings_iid (iid, id) or sightings_tid
 * (tid, id), read backwards (test/store/observation-plans.test.ts holds both stores to it).
 */
export function sightingsPage(db: Kysely<Database>, target: SightingTarget, size: number, beforeId?: number) {
  let query = db.selectFrom('sightings').selectAll();
  query = 'iid' in target ? query.where('iid', '=', target.iid) : query.where('tid', '=', target.tid);
  if (beforeId !== undefined) query = query.where('id', '<', beforeId);
  return query.orderBy('id', 'desc').limit(size);
}

/** Newest first, at most `limit`; `beforeId` continues after a page's last. */
export async function listSightings(db: Kysely<Database>, target: SightingTarget, limit: number, beforeId?: number): Promise<SightingRecord[]> {
  const size = pageSize(limit);
  if (size === 0 || keyOf(target) === undefined || (beforeId !== undefined && !Number.isSafeInteger(beforeId))) return [];
  const rows = await sightingsPage(db, target, size, beforeId).execute();
  return rows.map(toSightingRecord);
}

/** The counters kept on the record; undefined when no indicator or threat has that key. */
export async function observationCounts(db: Kysely<Database>, target: SightingTarget): Promise<ObservationCounts | undefined> {
  const key = keyOf(target);
  if (key === undefined) return undefined;
  if ('iid' in target) {
    const row = await db.selectFrom('indicators').select(['sightings', 'stamp_sighted', 'submissions']).where('iid', '=', key).executeTakeFirst();
    return row && { sightings: Number(row.sightings), stamp_sighted: row.stamp_sighted, submissions: Number(row.submissions) };
  }
  const row = await db.selectFrom('threats').select(['sightings', 'stamp_sighted']).where('tid', '=', key).executeTakeFirst();
  return row && { sightings: Number(row.sightings), stamp_sighted: row.stamp_sighted, submissions: 0 };
}

/** By its qid, and only for the key that made it: another key's is as good as none. */
export async function findSubmission(db: Kysely<Database>, qid: number, keyId: string): Promise<SubmissionRecord | undefined> {
  if (!Number.isSafeInteger(qid)) return undefined;
  const row = await db.selectFrom('submissions').selectAll().where('qid', '=', qid).where('key_id', '=', keyId).executeTakeFirst();
  return row && toSubmissionRecord(row);
}

/** An indicator's latest submissions, newest first: one range of submissions_iid (iid, qid), read backwards. */
export function submissionsPage(db: Kysely<Database>, iid: number, size: number) {
  return db.selectFrom('submissions').selectAll().where('iid', '=', iid).orderBy('qid', 'desc').limit(size);
}

export async function listSubmissions(db: Kysely<Database>, iid: number, limit: number): Promise<SubmissionRecord[]> {
  const size = pageSize(limit);
  if (size === 0 || !Number.isSafeInteger(iid)) return [];
  const rows = await submissionsPage(db, iid, size).execute();
  return rows.map(toSubmissionRecord);
}
