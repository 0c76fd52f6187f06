// Migration 0020: observations, the "Seen" action's sightings and the submissions for analysis (docs/observations.md).
import { sql, type Kysely, type Migration } from 'kysely';
import type { Dialect } from './dialect.js';

/**
 * - `sightings`: one row per sighting of an indicator (`iid`) or of a threat (`tid`): who reported
 *   it (an API key's id and label; a null key for the command line), when it was reported and seen,
 *   how many times, and the reporter's note. Ids increase, so an indicator's or a threat's latest
 *   sightings are one range of its index, read backwards from the newest.
 * - `submissions`: one row per value submitted for analysis (`analyze.php`), its `qid` the number
 *   the submitting key reads it back by; `iid` is the stored indicator of the value, null for a value
 *   the store does not know (no indicator is made for it). Indexed by (iid, key_id), to tell whether
 *   a key submitted an indicator before, and by (iid, qid), for an indicator's latest submissions.
 * - Counters kept as observations arrive, so no read counts over the rows: on indicators the sum of
 *   the sightings' counts, the earliest and latest `seen_at` (a STIX sighting's first_seen and
 *   last_seen, docs/stix-mapping.md) and the distinct keys that submitted it; on threats the sum and
 *   the latest. Constant defaults: no table rewrite on either dialect.
 * - Indexes on the indicators' counters, for explore's `sightings`, `submissions` and `sighted`
 *   (docs/explore.md): each holds only the indicators observed at all, few beside the rest.
 * The indexes are partial (a sighting is of an indicator or of a threat, and many submissions are of
 * values never stored): a lookup `iid = ?` implies `iid is not null`, which both planners use.
 */
export const observations = (dialect: Dialect): Migration => ({
  async up(db: Kysely<any>): Promise<void> {
    const id = dialect === 'sqlite' ? 'integer' : 'bigint';
    await db.schema
      .createTable('sightings')
      .addColumn('id', id, (c) => (dialect === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey().generatedByDefaultAsIdentity()))
      .addColumn('iid', id)
      .addColumn('tid', id)
      .addColumn('reported_by', 'text')
      .addColumn('reported_by_label', 'text')
      .addColumn('reported_at', 'text', (c) => c.notNull())
      .addColumn('seen_at', 'text', (c) => c.notNull())
      .addColumn('count', 'bigint', (c) => c.notNull())
      .addColumn('note', 'text')
      .execute();
    await db.schema.createIndex('sightings_iid').on('sightings').columns(['iid', 'id']).where('iid', 'is not', null).execute();
    await db.schema.createIndex('sightings_tid').on('sightings').columns(['tid', 'id']).where('tid', 'is not', null).execute();

    await db.schema
      .createTable('submissions')
      .addColumn('qid', id, (c) => (dialect === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey().generatedByDefaultAsIdentity()))
      .addColumn('key_id', 'text', (c) => c.notNull())
      .addColumn('value', 'text', (c) => c.notNull())
      .addColumn('type', 'text')
      .addColumn('iid', id)
      .addColumn('submitted_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('submissions_iid_key').on('submissions').columns(['iid', 'key_id']).where('iid', 'is not', null).execute();
    await db.schema.createIndex('submissions_iid').on('submissions').columns(['iid', 'qid']).where('iid', 'is not', null).execute();

    await db.schema.alterTable('indicators').addColumn('sightings', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
    await db.schema.alterTable('indicators').addColumn('stamp_sighted', 'text').execute();
    await db.schema.alterTable('indicators').addColumn('stamp_first_sighted', 'text').execute();
    await db.schema.alterTable('indicators').addColumn('submissions', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
    await db.schema.alterTable('threats').addColumn('sightings', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
    await db.schema.alterTable('threats').addColumn('stamp_sighted', 'text').execute();
    await db.schema.createIndex('indicators_sightings').on('indicators').columns(['sightings', 'iid']).where(sql.ref('sightings'), '>', 0).execute();
    await db.schema.createIndex('indicators_submissions').on('indicators').columns(['submissions', 'iid']).where(sql.ref('submissions'), '>', 0).execute();
    await db.schema.createIndex('indicators_sighted').on('indicators').columns(['stamp_sighted', 'iid']).where('stamp_sighted', 'is not', null).execute();
  },
});
