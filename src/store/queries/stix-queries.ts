// TAXII reads: keyset pages of a collection's objects or manifest over (date_added, id), with filters.
import { sql, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import type { CollectionRef, ListedObject, ObjectListing, ObjectPage } from '../contract/records.js';
import { isUnfiltered } from '../publish/collection-views.js';
import type { Database } from '../db/schema.js';
import { renderStoredVersion } from '../../stix/project-records.js';
import { indicatorRecordColumns, linkRecordColumns, versionRecordOf, type RecordColumns } from '../publish/version-records.js';





/**
 * One row more than the page is read to learn whether another page follows. A filtered view reads
 * its membership rows (with their own date_added); an unfiltered one reads stix_objects directly.
 */
export async function listCollectionObjects(db: Kysely<Database>, q: ObjectListing): Promise<ObjectPage> {
  if (q.withBody) {
    const { rows } = await (isUnfiltered(q.collection.filter) ? listAllWithBodies(q) : listViewWithBodies(q)).execute(db);
    const page = rows.slice(0, q.limit);
    const items: ListedObject[] = [];
    const skipped: string[] = [];
    for (const row of page) {
      const body = row.body !== '' ? row.body : renderStoredVersion(row.id, row.body_modified, versionRecordOf(row.type, row));
      if (body === undefined) skipped.push(row.id);
      else items.push({ id: row.id, type: row.type, modified: row.modified, dateAdded: Number(row.date_added), body });
    }
    return { items, more: rows.length > q.limit, last: lastOf(page), skipped };
  }
  const rows = await (isUnfiltered(q.collection.filter) ? listAll(db, q) : listView(db, q)).execute();
  const items = rows.slice(0, q.limit).map((r) => ({ id: r.id, type: r.type, modified: r.modified, dateAdded: Number(r.date_added), body: null }));
  return { items, more: rows.length > q.limit, last: lastOf(items), skipped: [] };
}

function lastOf(rows: readonly { id: string; date_added?: number; dateAdded?: number }[]): ObjectPage['last'] {
  const last = rows.at(-1);
  return last === undefined ? undefined : { dateAdded: Number(last.dateAdded ?? last.date_added), id: last.id };
}

/** A listed object with its stored body, or with the records to render it from (body ''). */
type RowWithBody = RecordColumns & {
  id: string;
  type: string;
  modified: string;
  date_added: number;
  body: string;
  /** `modified` of the stored version, which the body shows. */
  body_modified: string;
};

/**
 * The records an object without a stored body is rendered from, read by the same statement as the
 * page (one snapshot, so an import committing meanwhile cannot mix versions): the indicator with
 * the organization of its lowest-numbered feed, or the threat link with its threat's category.
 */
function sourcesOf(s: 'c' | 's'): RawBuilder<unknown> {
  const o = sql.raw(s);
  return sql`
    left join indicators i on ${o}.body = '' and ${o}.type = 'indicator' and i.iid = ${o}.iid
    left join threat_links tl on ${o}.body = '' and ${o}.type = 'relationship' and tl.tid = ${o}.tid and tl.iid = ${o}.iid
    left join threats t on t.tid = tl.tid`;
}

const SOURCE_COLUMNS = sql`${indicatorRecordColumns('i_')}, ${linkRecordColumns('l_')}`;

function listAllWithBodies(q: ObjectListing) {
  return sql<RowWithBody>`
    select c.id, c.type, c.modified, c.date_added, c.body, c.modified as body_modified, ${SOURCE_COLUMNS}
    from stix_objects c ${sourcesOf('c')}
    where ${listingConditions(q)}
    order by c.date_added, c.id limit ${q.limit + 1}`;
}

function listViewWithBodies(q: ObjectListing) {
  return sql<RowWithBody>`
    select c.id, c.type, c.modified, c.date_added, s.body, s.modified as body_modified, ${SOURCE_COLUMNS}
    from collection_objects c join stix_objects s on s.id = c.id ${sourcesOf('s')}
    where c.collection = ${q.collection.id} and ${listingConditions(q)}
    order by c.date_added, c.id limit ${q.limit + 1}`;
}

/** The listing's conditions on the rows aliased `c` (either table has the same columns). */
function listingConditions(q: ObjectListing): RawBuilder<SqlBool> {
  const parts: RawBuilder<unknown>[] = [sql`1 = 1`];
  if (q.objectId !== undefined) parts.push(sql`c.id = ${q.objectId}`);
  if (q.after) {
    const { dateAdded, id } = q.after;
    // A row value, so that both SQLite and PostgreSQL seek the (date_added, id) index to the spot.
    parts.push(sql`(c.date_added, c.id) > (${dateAdded}, ${id})`);
  }
  if (q.addedAfter !== null) parts.push(sql`c.date_added > ${q.addedAfter}`);
  if (q.ids) parts.push(sql`c.id in (${sql.join(q.ids)})`);
  if (q.types) parts.push(sql`c.type in (${sql.join(q.types)})`);
  if (q.modified) parts.push(sql`c.modified in (${sql.join(q.modified)})`);
  return sql<SqlBool>`${sql.join(parts, sql` and `)}`;
}

function listAll(db: Kysely<Database>, q: ObjectListing) {
  return db
    .selectFrom('stix_objects as c')
    .select(['c.id', 'c.type', 'c.modified', 'c.date_added'])
    .where(listingConditions(q))
    .orderBy('c.date_added')
    .orderBy('c.id')
    .limit(q.limit + 1);
}

function listView(db: Kysely<Database>, q: ObjectListing) {
  return db
    .selectFrom('collection_objects as c')
    .select(['c.id', 'c.type', 'c.modified', 'c.date_added'])
    .where('c.collection', '=', q.collection.id)
    .where(listingConditions(q))
    .orderBy('c.date_added')
    .orderBy('c.id')
    .limit(q.limit + 1);
}

export async function collectionHasObject(db: Kysely<Database>, collection: CollectionRef, id: string): Promise<boolean> {
  const row = isUnfiltered(collection.filter)
    ? await db.selectFrom('stix_objects').select('id').where('id', '=', id).executeTakeFirst()
    : await db.selectFrom('collection_objects').select('id').where('collection', '=', collection.id).where('id', '=', id).executeTakeFirst();
  return row !== undefined;
}
