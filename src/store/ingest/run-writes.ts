// A feed's run history (docs/interface.md section 12.3): one row per pull, written in the pull's transaction when
// it is kept and on its own when it failed, with the first values it rejected; the oldest runs of
// the feed beyond `keepRuns` go, and the rejections that belong to them.
import type { Kysely } from 'kysely';
import { REJECTIONS_KEPT, type RunRecord } from '../contract/runs.js';
import type { Database } from '../db/schema.js';
import { formatStamp } from '../../clock.js';

/** A rejected value longer than this is kept cut (a row of garbage is no value anyone will look up whole). */
const MAX_REJECTED_VALUE = 500;
/** Rows per multi-row INSERT of rejections: five parameters each. */
const REJECTION_ROWS = 100;

/** Writes the run and its rejections, and prunes the feed's runs to `keepRuns`; returns the run id. */
export async function writeRun(db: Kysely<Database>, record: RunRecord, keepRuns: number): Promise<number> {
  const { report, counts } = record;
  const row = await db
    .insertInto('feed_runs')
    .values({
      fid: record.fid,
      started_ms: report.started,
      finished_ms: Math.max(record.finished, report.started),
      run_trigger: report.trigger,
      outcome: record.outcome,
      http_status: report.httpStatus,
      bytes: report.bytes,
      value_count: counts?.values ?? null,
      new_indicators: counts?.newIndicators ?? null,
      new_links: counts?.newLinks ?? null,
      unlisted: counts?.unlisted ?? null,
      churn: counts?.churn ?? null,
      rejected_unparseable: report.rejected.unparseable,
      rejected_allowlisted: report.rejected.allowlisted,
      threats: counts?.threats ?? null,
      error: record.error ?? null,
      etag: record.etag,
      last_modified: record.lastModified,
    })
    .returning('run')
    .executeTakeFirstOrThrow();
  const run = Number(row.run);
  const at = formatStamp(report.started);
  const rejections = report.rejections.slice(0, REJECTIONS_KEPT);
  // The same value rejected twice in one pull is one row (a key per feed and value).
  const unique = [...new Map(rejections.map((r) => [r.value.slice(0, MAX_REJECTED_VALUE), r.reason])).entries()];
  for (let i = 0; i < unique.length; i += REJECTION_ROWS) {
    const rows = unique.slice(i, i + REJECTION_ROWS).map(([value, reason]) => ({ value, fid: record.fid, reason, at, run }));
    await db
      .insertInto('pull_rejections')
      .values(rows)
      .onConflict((oc) => oc.columns(['value', 'fid']).doUpdateSet((eb) => ({ reason: eb.ref('excluded.reason'), at: eb.ref('excluded.at'), run: eb.ref('excluded.run') })))
      .execute();
  }
  await pruneRuns(db, record.fid, keepRuns);
  return run;
}

/** Deletes the feed's runs older than its latest `keepRuns`, with their rejections: one index range each. */
async function pruneRuns(db: Kysely<Database>, fid: number, keepRuns: number): Promise<void> {
  const oldestGone = await db
    .selectFrom('feed_runs')
    .select('run')
    .where('fid', '=', fid)
    .orderBy('run', 'desc')
    .limit(1)
    .offset(keepRuns)
    .executeTakeFirst();
  if (oldestGone === undefined) return;
  await db.deleteFrom('feed_runs').where('fid', '=', fid).where('run', '<=', oldestGone.run).execute();
  await db.deleteFrom('pull_rejections').where('fid', '=', fid).where('run', '<=', oldestGone.run).execute();
}
