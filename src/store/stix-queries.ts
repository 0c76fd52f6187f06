// TAXII reads: keyset pages of a collection's objects or manifest over (date_added, id), with filters.
import { sql, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import type { CollectionConfig } from '../config.js';
import { isUnfiltered } from './collection-views.js';
import type { Database } from './schema.js';

/** A collection as the store needs it: an unfiltered view is the whole of stix_objects. */
export type CollectionRef = Pick<CollectionConfig, 'id' | 'filter'>;

export interface ObjectListing {
  collection: CollectionRef;
  /** Only this object (Get an Object, Get Object Versions). */
  objectId?: string;
  /** Continue after this item (from a `next` token). */
  after: { dateAdded: number; id: string } | null;
  addedAfter: number | null;
  ids: string[] | null;
  types: string[] | null;
  /** `modified` values to keep (normalized, millisecond RFC 3339); null keeps the one version stored. */
  modified: string[] | null;
  limit: number;
  withBody: boolean;
}

export interface ListedObject {
  id: string;
  type: string;
  modified: string;
  dateAdded: number;
  body: string | null;
}

/**
 * One row more than the page is read to learn whether another page follows. A filtered view reads
 * its membership rows (with their own date_added); an unfiltered one reads stix_objects directly.
 */
export async function listCollectionObjects(db: Kysely<Database>, q: ObjectListing): Promise<{ items: ListedObject[]; more: boolean }> {
  const query = isUnfiltered(q.collection.filter) ? listAll(db, q) : listView(db, q);
  const rows = await query.execute();
  const items = rows.slice(0, q.limit).map((r) => ({
    id: r.id,
    type: r.type,
    modified: r.modified,
    dateAdded: Number(r.date_added),
    body: (r as { body?: string }).body ?? null,
  }));
  return { items, more: rows.length > q.limit };
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
    .$if(q.withBody, (qb) => qb.select('c.body'))
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
    .$if(q.withBody, (qb) => qb.innerJoin('stix_objects as s', 's.id', 'c.id').select(sql<string>`s.body`.as('body')))
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
