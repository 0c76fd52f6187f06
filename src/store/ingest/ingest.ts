// The ingest stage of a write: its batches (contract/write-batch.ts) written in the write's
// transaction, a pull's or a lifecycle run's plan applied, the records checked, and the links moved
// into place; what changed is left in the change set (changes/) for derive and publish.
// Unchanged records are not touched.
import type { Kysely, Transaction } from 'kysely';
import { upsertFeedSource } from './source-writes.js';
import { applyLifecycle, applyThreatState } from './lifecycle-writer.js';
import type { PullCounts, WriteCommand, WriteKind, WriteOutcomes } from '../contract/commands.js';
import { applyAllowlist } from './allowlist-writer.js';
import { applyFeedDelete } from './feed-delete.js';
import { applySighting, applySubmission } from './observation-writer.js';
import type { Dialect } from '../db/dialect.js';
import { withoutIndexes } from '../db/dialect.js';
import type { Database } from '../db/schema.js';
import { insertRows, type RowTable } from '../db/bulk-insert.js';
import type { WriteBatch } from '../contract/write-batch.js';
import { UPSERTS } from './record-upserts.js';
import { checkKeyConflicts, checkLinkTargets, checkRelatedTargets } from './record-checks.js';
import {
  applyPull, createPullStaging, REF_THREAT_STAGING, THREAT_DEF_STAGING, VALUE_ATTRIBUTE_STAGING, VALUE_REF_STAGING, VALUE_STAGING, VALUE_THREAT_STAGING, WITHDRAWN_STAGING,
} from './pull-writer.js';
import { LINK_KIND } from '../contract/write-batch.js';
import { changeSetOf, countChanged, noteChanged, type ChangeSet } from '../changes/change-set.js';
import { createChangeTables, dropChangeTables } from '../changes/change-tables.js';
import { keepReplacedIndicators } from '../changes/replaced-indicators.js';
import { moveLinks, stageLinks } from '../changes/staged-links.js';
import { stageKeys } from '../changes/staged-keys.js';
import { dropPullTables } from './pull-tables.js';
import { readAhead } from './read-ahead.js';

/** Upserts one batch of rows; returns the keys actually inserted or changed. */
async function upsert<Row extends readonly unknown[]>(
  trx: Transaction<Database>, dialect: Dialect, { table, key }: { table: RowTable<Row>; key: string }, rows: readonly Row[],
): Promise<number[]> {
  const result = await insertRows<Row, Record<string, unknown>>(trx, dialect, table, rows);
  return result.map((r) => Number(r[key]));
}

type EndBatch = Extract<WriteBatch, { kind: 'end' }>;

/** What the batches said so far: the end of the records. */
interface BatchState {
  end?: EndBatch;
}

/** Writes one batch of the command's; the end of the records goes to `state`. */
async function writeBatch(
  trx: Transaction<Database>, dialect: Dialect, kind: WriteKind, batch: WriteBatch, fresh: boolean, state: BatchState, at: string,
): Promise<void> {
  if (batch.kind === 'values') {
    if (kind !== 'pull') throw new Error('pulled values came without their pull');
    await insertRows(trx, dialect, VALUE_STAGING, batch.values);
    await insertRows(trx, dialect, VALUE_THREAT_STAGING, batch.threats);
    await insertRows(trx, dialect, VALUE_REF_STAGING, batch.refs);
    await insertRows(trx, dialect, WITHDRAWN_STAGING, batch.withdrawn);
    await insertRows(trx, dialect, VALUE_ATTRIBUTE_STAGING, batch.attributes);
    return;
  }
  if (batch.kind === 'relations') {
    if (kind !== 'pull') throw new Error('pulled relations came without their pull');
    await insertRows(trx, dialect, REF_THREAT_STAGING, batch.refThreats);
    await insertRows(trx, dialect, THREAT_DEF_STAGING, batch.threatDefs);
    return;
  }
  if (batch.kind === 'end') {
    state.end = batch;
    return;
  }
  if (batch.kind === 'sources') {
    // Its feeds came in earlier batches of this transaction.
    for (const [fid, definition] of batch.rows) await upsertFeedSource(trx, fid, definition, at);
    return;
  }
  await writeRows(trx, dialect, batch, fresh);
}

/** Writes one batch of records or links. */
async function writeRows(trx: Transaction<Database>, dialect: Dialect, batch: Extract<WriteBatch, { kind: 'threats' | 'feeds' | 'indicators' | 'links' }>, fresh: boolean): Promise<void> {
  if (batch.kind !== 'links') await stageKeys(trx, dialect, batch.keys);
  switch (batch.kind) {
    case 'threats': {
      const changed = await upsert(trx, dialect, UPSERTS.threats, batch.rows);
      if (changed.length === 0) return undefined;
      await noteChanged(trx, 'threats', changed);
      await trx.deleteFrom('threat_names').where('tid', 'in', changed).execute();
      const isChanged = new Set(changed);
      const names = batch.names.filter(([tid]) => isChanged.has(tid)).flatMap(([tid, keys]) => keys.map((name_key) => ({ name_key, tid })));
      for (let i = 0; i < names.length; i += 400) await trx.insertInto('threat_names').values(names.slice(i, i + 400)).execute();
      return undefined;
    }
    case 'feeds':
      await noteChanged(trx, 'feeds', await upsert(trx, dialect, UPSERTS.feeds, batch.rows));
      return undefined;
    case 'indicators':
      // Into a fresh store nothing is replaced; elsewhere the rows an upsert changes in type or
      // value are kept first, for the revoked version of an indicator that loses its pattern.
      if (!fresh) await keepReplacedIndicators(trx, batch.rows);
      await noteChanged(trx, 'indicators', await upsert(trx, dialect, UPSERTS.indicators, batch.rows));
      return undefined;
    case 'links':
      await stageLinks(trx, dialect, batch.rows);
      return undefined;
  }
}

/** A command's own result as ingest gives it; a pull's run is recorded once the write is published (apply.ts). */
export type IngestOutcomes = Omit<WriteOutcomes, 'pull'> & { pull: { pulled: PullCounts } };

/** What ingest leaves for the stages after it, and the command's own result for the write's summary. */
export interface Ingested<K extends WriteKind> {
  changes: ChangeSet;
  end: EndBatch;
  result: IngestOutcomes[K];
}

/** The end of a lifecycle command's write, which reads no records. */
const NOTHING_READ: EndBatch = { kind: 'end', records: 0, read: { threats: 0, feeds: 0, indicators: 0, links: 0 }, related: [], skippedTtps: 0 };

/**
 * Writes every batch, applies the plans they carry, checks the records and moves the links into
 * place. `fresh`: the store holds no data, so everything is new and goes in bulk; `at` is the
 * write's time (`YYYY-MM-DD HH:MM:SS`), which a file's feed sources are stamped with. Throws
 * ImportError (or PullRefused) for a write that must change nothing; the caller rolls it back.
 */
export async function ingest<K extends WriteKind>(
  trx: Transaction<Database>, dialect: Dialect, command: WriteCommand<K>, batches: AsyncIterable<WriteBatch>, fresh: boolean, at: string,
): Promise<Ingested<K>> {
  await createChangeTables(trx, dialect, fresh);
  if (command.kind === 'pull') await createPullStaging(trx, dialect);
  const state: BatchState = {};
  // Into an empty SQLite store, the index that finds indicators by value (pull-migration.ts) is
  // built once after the rows, in one sort, rather than at a random place for each of them.
  // PostgreSQL writes a batch in its own process, while the next is read here (read-ahead.ts); SQLite
  // writes on this thread, so reading ahead would only hold one more batch.
  const writeAll = async () => {
    for await (const batch of dialect === 'postgres' ? readAhead(batches) : batches) await writeBatch(trx, dialect, command.kind, batch, fresh, state, at);
  };
  if (fresh) await withoutIndexes(trx, dialect, { index: 'indicators_value' }, writeAll);
  else await writeAll();
  // Records and pulls end with the counts; without them the records were cut short.
  const reads = command.kind === 'records' || command.kind === 'pull';
  const end = state.end ?? (reads ? undefined : NOTHING_READ);
  if (end === undefined) throw new Error('the write\'s batches ended without their counts');
  const apply: (trx: Transaction<Database>, command: WriteCommand<K>, dialect: Dialect) => Promise<IngestOutcomes[K]> = APPLY[command.kind];
  const result = await apply(trx, command, dialect);
  await checkKeyConflicts(trx);
  await checkRelatedTargets(trx, end.related);
  await checkLinkTargets(trx);
  const changes = changeSetOf({
    threats: await countChanged(trx, 'threats'),
    feeds: await countChanged(trx, 'feeds'),
    indicators: await countChanged(trx, 'indicators'),
    feedLinks: await moveLinks(trx, LINK_KIND.feed, fresh),
    threatLinks: await moveLinks(trx, LINK_KIND.threat, fresh),
    fresh,
    pulled: command.kind === 'pull',
    observed: observesRecord(command as WriteCommand),
    seenThreats: await countChanged(trx, 'seen-threats'),
    sightedIndicators: await countChanged(trx, 'sighted-indicators'),
  });
  return { changes, end, result };
}

/** A sighting, or a submission of a stored indicator: each changes what the lookups show of it. */
function observesRecord(command: WriteCommand): boolean {
  return command.kind === 'sighting' || (command.kind === 'submission' && command.plan.iid !== null);
}

/** Each command's own changes, once its batches are staged. */
const APPLY: { [K in WriteKind]: (trx: Transaction<Database>, command: WriteCommand<K>, dialect: Dialect) => Promise<IngestOutcomes[K]> } = {
  records: async () => ({}),
  pull: async (trx, { plan }, dialect) => ({ pulled: await applyPull(trx, plan, dialect) }),
  lifecycle: async (trx, { plan }) => ({ lifecycle: await applyLifecycle(trx, plan) }),
  'threat-state': async (trx, { plan }) => ({ threatStateChanged: await applyThreatState(trx, plan) }),
  allowlist: async (trx, { plan }, dialect) => ({ allowlisted: await applyAllowlist(trx, plan, dialect) }),
  'feed-delete': async (trx, { plan }, dialect) => ({ feedDeleted: await applyFeedDelete(trx, plan, dialect) }),
  sighting: async (trx, { plan }) => ({ sighted: await applySighting(trx, plan) }),
  submission: async (trx, { plan }) => ({ submitted: await applySubmission(trx, plan) }),
};

/** Drops the change set's tables (and a pull's) once publish has read them. */
export async function endIngest(trx: Kysely<Database>, ingested: Ingested<WriteKind>): Promise<void> {
  await dropChangeTables(trx);
  if (ingested.changes.pulled) await dropPullTables(trx);
}
