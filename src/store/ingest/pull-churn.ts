// How much of a feed's listing a pull replaces (docs/sources.md, the sanity gate): the run's churn from
// counts the pull has at hand, and, for `maxChurn`, how many staged values the feed lists already.
import { sql, type Transaction } from 'kysely';
import type { PullPlan } from '../contract/commands.js';
import type { Database } from '../db/schema.js';

/**
 * The share of the previous listing the pull no longer lists, 0 to 1 (to four places): `unlisted`
 * over the listing the pull began with. Null without one (a first pull, an incremental source, a
 * previous listing of nothing). Capped at 1: a write between the pull's start and its transaction
 * (an allowlist entry) may have shrunk the listing it is counted against.
 */
export function churnOf(plan: PullPlan, unlisted: number): number | null {
  const before = plan.listedBefore;
  if (before === undefined || before <= 0 || plan.incremental === true) return null;
  return Math.min(1, Math.round((unlisted / before) * 10_000) / 10_000);
}

/**
 * Hands the gate's churn check (PullPlan `checkOverlap`) how many of the pull's distinct values the
 * feed lists now: one probe of source_listings' key per staged value whose indicator the pull has
 * found already (pull_values.iid where not new), so no pass over the feed's whole listing. Changes nothing;
 * the check throws PullRefused to keep nothing.
 */
export async function checkChurn(trx: Transaction<Database>, plan: PullPlan): Promise<void> {
  if (plan.checkOverlap === undefined) return;
  const { rows } = await sql<{ n: number | string }>`select count(*) as n from pull_values v
    where v.new = 0 and exists (select 1 from source_listings l where l.fid = ${plan.fid} and l.iid = v.iid)`.execute(trx);
  plan.checkOverlap(Number(rows[0]?.n ?? 0));
}
