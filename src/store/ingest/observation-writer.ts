// The store's side of observations (docs/observations.md): a sighting ("Seen") of an indicator or a
// threat, and a value submitted for analysis. Each is kept as a row of its own and, when it names a
// stored record, observes it: the record's counters and its stamp_seen, and the stamp_seen of the
// threats an indicator is linked to, so the lifecycle's automatic retirement counts it (docs/interface.md
// section 3). Each runs in a write's transaction (apply.ts), so publish and the data version follow.
import { sql, type Selectable, type Transaction } from 'kysely';
import type { Database, SightingTable, SubmissionTable } from '../db/schema.js';
import { noteChanged } from '../changes/change-set.js';
import { laterOf } from '../db/listing-stamps.js';
import { SightingRefused, type SightingPlan, type SightingRecord, type SubmissionPlan, type SubmissionRecord } from '../contract/observations.js';

const STAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

/** `column` lowered to `at` when it is later or null. */
const earlierOf = (column: string, at: string) => sql`case when ${sql.ref(column)} is null or ${sql.ref(column)} > ${at} then ${at} else ${sql.ref(column)} end`;

/**
 * The plan as the store can keep it; the callers (src/observations) check what a reporter gives
 * and word the refusals, so a failure here is a caller's fault, refused all the same.
 */
function checkSighting(plan: SightingPlan): void {
  const [key, id] = 'iid' in plan.target ? (['iid', plan.target.iid] as const) : (['tid', plan.target.tid] as const);
  if (!Number.isSafeInteger(id)) throw new SightingRefused(`${key} ${id} is not a whole number`);
  if (!Number.isSafeInteger(plan.count) || plan.count < 1) throw new SightingRefused(`count ${plan.count} is not a whole number of 1 or more`);
  for (const [field, stamp] of [['seenAt', plan.seenAt], ['reportedAt', plan.reportedAt]] as const) {
    if (!STAMP.test(stamp)) throw new SightingRefused(`${field} "${stamp}" is not a YYYY-MM-DD HH:MM:SS stamp`);
  }
}

/**
 * Stores a sighting and observes what it names: an indicator's sightings (count added, earliest and
 * latest seen) and stamp_seen, and each linked threat's stamp_seen; or a threat's own sightings and
 * stamp_seen. Stamps only move forward: a sighting seen earlier than the last observation leaves
 * stamp_seen as it is. A retired threat stays retired and an aged-out indicator keeps its risk
 * (its sources decide that). Throws SightingRefused for an iid or tid the store does not have.
 */
export async function applySighting(trx: Transaction<Database>, plan: SightingPlan): Promise<SightingRecord> {
  checkSighting(plan);
  const { target, seenAt } = plan;
  const iid = 'iid' in target ? target.iid : null;
  const tid = 'tid' in target ? target.tid : null;
  if (iid !== null) {
    const observed = await sql<{ iid: number }>`
      update indicators set sightings = sightings + ${plan.count},
        stamp_sighted = ${laterOf('stamp_sighted', seenAt)}, stamp_first_sighted = ${earlierOf('stamp_first_sighted', seenAt)},
        stamp_seen = ${laterOf('stamp_seen', seenAt)}
      where iid = ${iid} returning iid`.execute(trx);
    if (observed.rows.length === 0) throw new SightingRefused(`no indicator has iid ${iid}`);
    await noteChanged(trx, 'sighted-indicators', [iid]);
    await observeLinkedThreats(trx, iid, seenAt);
  } else if (tid !== null) {
    const threat = await trx.selectFrom('threats').select('stamp_seen').where('tid', '=', tid).executeTakeFirst();
    if (threat === undefined) throw new SightingRefused(`no threat has tid ${tid}`);
    await sql`
      update threats set sightings = sightings + ${plan.count}, stamp_sighted = ${laterOf('stamp_sighted', seenAt)}, stamp_seen = ${laterOf('stamp_seen', seenAt)}
      where tid = ${tid}`.execute(trx);
    if (threat.stamp_seen === null || threat.stamp_seen < seenAt) await noteChanged(trx, 'seen-threats', [tid]);
  }
  const row = await trx
    .insertInto('sightings')
    .values({
      iid, tid, reported_by: plan.by.keyId, reported_by_label: plan.by.label, reported_at: plan.reportedAt, seen_at: seenAt, count: plan.count, note: plan.note,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toSightingRecord(row);
}

/**
 * Stores a submission; one of a stored indicator observes it as a sighting of no count would (its
 * stamp_seen and its threats'), and counts the key among the indicator's submitters the first time
 * that key submits it. A submission of a value the store does not know changes nothing else.
 */
export async function applySubmission(trx: Transaction<Database>, plan: SubmissionPlan): Promise<SubmissionRecord> {
  if (!STAMP.test(plan.at)) throw new SightingRefused(`at "${plan.at}" is not a YYYY-MM-DD HH:MM:SS stamp`);
  const { iid } = plan;
  if (iid !== null && !Number.isSafeInteger(iid)) throw new SightingRefused(`iid ${iid} is not a whole number`);
  if (iid !== null) {
    // Read before the row goes in: the (iid, key_id) index answers it.
    const before = await trx.selectFrom('submissions').select('qid').where('iid', '=', iid).where('key_id', '=', plan.keyId).limit(1).executeTakeFirst();
    const observed = await sql<{ iid: number }>`
      update indicators set submissions = submissions + ${before === undefined ? 1 : 0}, stamp_seen = ${laterOf('stamp_seen', plan.at)}
      where iid = ${iid} returning iid`.execute(trx);
    if (observed.rows.length === 0) throw new SightingRefused(`no indicator has iid ${iid}`);
    await observeLinkedThreats(trx, iid, plan.at);
  }
  const row = await trx
    .insertInto('submissions')
    .values({ key_id: plan.keyId, value: plan.value, type: plan.type, iid, submitted_at: plan.at })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toSubmissionRecord(row);
}

/**
 * Raises the stamp_seen of the threats linked to the indicator to `at` (retired ones too, which
 * stay retired, as a pull's observations leave them) and notes those whose stamp moved.
 */
async function observeLinkedThreats(trx: Transaction<Database>, iid: number, at: string): Promise<void> {
  const { rows } = await sql<{ tid: number }>`
    update threats set stamp_seen = ${at}
    where tid in (select tl.tid from threat_links tl where tl.iid = ${iid}) and (stamp_seen is null or stamp_seen < ${at})
    returning tid`.execute(trx);
  await noteChanged(trx, 'seen-threats', rows.map((r) => Number(r.tid)));
}

export function toSightingRecord(row: Selectable<SightingTable>): SightingRecord {
  return {
    id: Number(row.id),
    iid: row.iid === null ? null : Number(row.iid),
    tid: row.tid === null ? null : Number(row.tid),
    reported_by: row.reported_by,
    reported_by_label: row.reported_by_label,
    reported_at: row.reported_at,
    seen_at: row.seen_at,
    count: Number(row.count),
    note: row.note,
  };
}

export function toSubmissionRecord(row: Selectable<SubmissionTable>): SubmissionRecord {
  return {
    qid: Number(row.qid),
    key_id: row.key_id,
    value: row.value,
    type: row.type,
    iid: row.iid === null ? null : Number(row.iid),
    submitted_at: row.submitted_at,
  };
}
