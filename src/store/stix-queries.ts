// TAXII reads: keyset pages of a collection's objects or manifest over (date_added, id), with filters.
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';

export interface ObjectListing {
  collection: string;
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

/** One row more than the page is read to learn whether another page follows. */
export async function listCollectionObjects(db: Kysely<Database>, q: ObjectListing): Promise<{ items: ListedObject[]; more: boolean }> {
  let query = db
    .selectFrom('collection_objects as c')
    .select(['c.id', 'c.type', 'c.modified', 'c.date_added'])
    .where('c.collection', '=', q.collection);
  if (q.objectId !== undefined) query = query.where('c.id', '=', q.objectId);
  if (q.after) {
    const { dateAdded, id } = q.after;
    query = query.where((eb) => eb.or([eb('c.date_added', '>', dateAdded), eb.and([eb('c.date_added', '=', dateAdded), eb('c.id', '>', id)])]));
  }
  if (q.addedAfter !== null) query = query.where('c.date_added', '>', q.addedAfter);
  if (q.ids) query = query.where('c.id', 'in', q.ids);
  if (q.types) query = query.where('c.type', 'in', q.types);
  if (q.modified) query = query.where('c.modified', 'in', q.modified);
  const rows = await query
    .$if(q.withBody, (qb) => qb.innerJoin('stix_objects as s', 's.id', 'c.id').select(sql<string>`s.body`.as('body')))
    .orderBy('c.date_added')
    .orderBy('c.id')
    .limit(q.limit + 1)
    .execute();
  const items = rows.slice(0, q.limit).map((r) => ({
    id: r.id,
    type: r.type,
    modified: r.modified,
    dateAdded: Number(r.date_added),
    body: (r as { body?: string }).body ?? null,
  }));
  return { items, more: rows.length > q.limit };
}

export async function collectionHasObject(db: Kysely<Database>, collection: string, id: string): Promise<boolean> {
  const row = await db.selectFrom('collection_objects').select('id').where('collection', '=', collection).where('id', '=', id).executeTakeFirst();
  return row !== undefined;
}
