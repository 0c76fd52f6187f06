// Migration 0026: on PostgreSQL, the trigram index of explore's wildcards moves off `indicators` onto
// a table of its own (docs/explore.md, "How queries stay bounded"). SQLite's trigram index is an
// FTS5 table beside `indicators` already (search-migration.ts): nothing changes there.
import { sql, type Kysely, type Migration } from 'kysely';
import type { Dialect } from './dialect.js';
import { trigramOperatorClass } from './search-migration.js';
import { TRIGRAM_PENDING_LIST_KIB } from './storage-migration.js';

/**
 * - `indicator_wildcard_values`: each indicator's value, lowercased, by iid, under the trigram
 *   index (`indicator_wildcard_values_trigrams`) that answers `ioc=*...*`.
 * - Triggers on `indicators` keep it: an insert statement adds its new rows (one set-based insert
 *   per statement, from the statement's inserted rows), an update that changes a value rewrites that
 *   value's row, a delete takes its rows away.
 * Why a table of its own: a pull that changes an indicator's risk, attributes or stamps writes the
 * row's new version, and where an indexed column changes PostgreSQL adds an entry for it to every
 * index of the table. On `indicators` the trigram index was the costliest of them (a value is
 * twenty or more trigrams), paid again for every changed row although the value never changes.
 * Here a value's trigrams are written once, when its indicator is inserted.
 */
export const wildcardValues = (dialect: Dialect): Migration => ({
  async up(db: Kysely<any>): Promise<void> {
    if (dialect !== 'postgres') return;
    await sql`create table indicator_wildcard_values (iid bigint primary key, value text not null)`.execute(db);
    await sql`insert into indicator_wildcard_values (iid, value) select iid, lower(value) from indicators order by iid`.execute(db);
    const opclass = await trigramOperatorClass(db);
    await sql`create index indicator_wildcard_values_trigrams on indicator_wildcard_values using gin (value ${sql.raw(opclass)})
      with (gin_pending_list_limit = ${sql.raw(String(TRIGRAM_PENDING_LIST_KIB))})`.execute(db);
    // The functions read the table through the search path the store migrates with (its schema),
    // whatever the path of the connection whose write fires them.
    await sql`create function indicator_wildcard_values_insert() returns trigger language plpgsql set search_path from current as $$
      begin insert into indicator_wildcard_values (iid, value) select iid, lower(value) from inserted_indicators; return null; end $$`.execute(db);
    await sql`create trigger indicator_wildcard_values_insert after insert on indicators
      referencing new table as inserted_indicators for each statement execute function indicator_wildcard_values_insert()`.execute(db);
    await sql`create function indicator_wildcard_values_update() returns trigger language plpgsql set search_path from current as $$
      begin update indicator_wildcard_values set value = lower(new.value) where iid = new.iid; return null; end $$`.execute(db);
    // Fires only for a statement that sets `value`, and for a row only when the value changed: an import that changes a value.
    await sql`create trigger indicator_wildcard_values_update after update of value on indicators
      for each row when (old.value is distinct from new.value) execute function indicator_wildcard_values_update()`.execute(db);
    await sql`create function indicator_wildcard_values_delete() returns trigger language plpgsql set search_path from current as $$
      begin delete from indicator_wildcard_values where iid in (select iid from deleted_indicators); return null; end $$`.execute(db);
    await sql`create trigger indicator_wildcard_values_delete after delete on indicators
      referencing old table as deleted_indicators for each statement execute function indicator_wildcard_values_delete()`.execute(db);
    await sql`drop index indicators_value_trigrams`.execute(db);
  },
});
