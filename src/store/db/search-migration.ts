// Migration 0019: the indexes explore answers its fields through (docs/explore.md, "How queries stay bounded").
import { sql, type Kysely, type Migration } from 'kysely';
import { writeAttributeValues, writeNetworks } from './search-keys.js';
import type { Dialect } from './dialect.js';
import type { Database } from './schema.js';

/** Arbitrary, fixed: the advisory lock that keeps two schemas of one database from creating pg_trgm at once. */
const TRIGRAM_EXTENSION_LOCK = 7_324_861_003;

/**
 * PostgreSQL: pg_trgm, which belongs to the database rather than to a schema. It is created in
 * `public` when no schema holds it yet (a test store's schema is dropped with its contents, and an
 * extension created there would go with it); the operator class is named with the schema that holds
 * it, as the store's search_path may not include that schema.
 */
export async function trigramOperatorClass(db: Kysely<any>): Promise<string> {
  const where = async () =>
    (await sql<{ schema: string }>`select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm'`.execute(db)).rows[0]?.schema;
  let schema = await where();
  if (schema === undefined) {
    await sql`select pg_advisory_xact_lock(${TRIGRAM_EXTENSION_LOCK})`.execute(db);
    await sql`create extension if not exists pg_trgm with schema public`.execute(db);
    schema = (await where())!;
  }
  return `"${schema.replace(/"/g, '""')}".gin_trgm_ops`;
}

/**
 * - `indicator_networks`: each stored ip, ipv4, ipv6 or cidr indicator whose value is an address or
 *   block, as its first and last address (`lo`, `hi`: search-keys.ts); (lo, hi) finds what lies inside a
 *   block with two comparisons.
 * - `indicator_attribute_values`: each value of each attribute list, lowercased (search-keys.ts);
 *   keyed (name, value, iid) for `attribute.NAME=`, with (value, iid) for a value of any attribute.
 * - The values' trigrams, for wildcards: PostgreSQL a GIN index on lower(value) (pg_trgm); SQLite an
 *   FTS5 table with the trigram tokenizer over indicators' value (external content: it stores only
 *   the index), kept by triggers, as every write path inserts indicators.
 * - Indexes on indicators for type, risk and the stamps; retired = 1 (an import's retired flag,
 *   whatever the risk) as a partial index. `stamp_seen` has none: docs/explore.md says why.
 * Rows already stored are filled in a page of indicators at a time (search-keys.ts).
 */
export const searchIndexes = (dialect: Dialect): Migration => ({
  async up(db: Kysely<any>): Promise<void> {
    const id = dialect === 'sqlite' ? 'integer' : 'bigint';
    await db.schema
      .createTable('indicator_networks')
      .addColumn('iid', id, (c) => c.primaryKey())
      .addColumn('lo', 'text', (c) => c.notNull())
      .addColumn('hi', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('indicator_networks_range').on('indicator_networks').columns(['lo', 'hi']).execute();
    await db.schema
      .createTable('indicator_attribute_values')
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('value', 'text', (c) => c.notNull())
      .addColumn('iid', id, (c) => c.notNull())
      .addPrimaryKeyConstraint('indicator_attribute_values_pk', ['name', 'value', 'iid'])
      .$call((t) => (dialect === 'sqlite' ? t.modifyEnd(sql`without rowid`) : t))
      .execute();
    await db.schema.createIndex('indicator_attribute_values_value').on('indicator_attribute_values').columns(['value', 'iid']).execute();

    for (const [name, columns] of [
      ['indicators_type', ['type', 'iid']],
      ['indicators_risk', ['risk', 'iid']],
      ['indicators_added', ['stamp_added']],
      ['indicators_updated', ['stamp_updated']],
      ['indicators_retired', ['stamp_retired']],
    ] as const) {
      await db.schema.createIndex(name).on('indicators').columns([...columns]).execute();
    }
    await db.schema.createIndex('indicators_retired_flag').on('indicators').column('iid').where(sql.ref('retired'), '=', 1).execute();

    if (dialect === 'postgres') {
      const opclass = await trigramOperatorClass(db);
      await sql`create index indicators_value_trigrams on indicators using gin (lower(value) ${sql.raw(opclass)})`.execute(db);
    } else {
      await sql`create virtual table indicator_values_fts using fts5(value, content='indicators', content_rowid='iid', tokenize='trigram', detail='none')`.execute(db);
      await sql`create trigger indicator_values_fts_insert after insert on indicators begin
        insert into indicator_values_fts (rowid, value) values (new.iid, new.value); end`.execute(db);
      await sql`create trigger indicator_values_fts_update after update of value on indicators when old.value is not new.value begin
        insert into indicator_values_fts (indicator_values_fts, rowid, value) values ('delete', old.iid, old.value);
        insert into indicator_values_fts (rowid, value) values (new.iid, new.value); end`.execute(db);
      await sql`create trigger indicator_values_fts_delete after delete on indicators begin
        insert into indicator_values_fts (indicator_values_fts, rowid, value) values ('delete', old.iid, old.value); end`.execute(db);
      await sql`insert into indicator_values_fts (indicator_values_fts) values ('rebuild')`.execute(db);
    }

    const store = db as Kysely<Database>;
    await writeNetworks(store, dialect, sql`1 = 1`);
    await writeAttributeValues(store, dialect, sql`select iid, attributes from indicators where attributes <> '{}'`);
  },
});
