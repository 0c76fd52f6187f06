// TAXII reads: keyset pages of a collection's objects or manifest over (date_added, id), with filters.
import { sql, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import type { CollectionConfig } from '../../config.js';
import { isUnfiltered } from '../publish/collection-views.js';
import type { Database } from '../db/schema.js';
import type { VersionRecord } from '../../stix/project-records.js';
import { organizationOf } from '../publish/stix-rows.js';

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
  /** The stored body (identities, threats, revoked versions); null for a listing without bodies, or one rendered on read. */
  body: string | null;
  /**
   * For a version rendered on read (body null): its `modified` and the records it is rendered from,
   * read by the same statement as the page, or undefined when they are gone. The reader projects it
   * (src/stix/project-records.ts renderStoredVersion); the store only reads.
   */
  rendered?: { modified: string; record: VersionRecord | undefined };
}

/**
 * One row more than the page is read to learn whether another page follows. A filtered view reads
 * its membership rows (with their own date_added); an unfiltered one reads stix_objects directly.
 */
export async function listCollectionObjects(db: Kysely<Database>, q: ObjectListing): Promise<{ items: ListedObject[]; more: boolean }> {
  if (q.withBody) {
    const { rows } = await (isUnfiltered(q.collection.filter) ? listAllWithBodies(q) : listViewWithBodies(q)).execute(db);
    const items = rows.slice(0, q.limit).map(withBodyOrRecord);
    return { items, more: rows.length > q.limit };
  }
  const rows = await (isUnfiltered(q.collection.filter) ? listAll(db, q) : listView(db, q)).execute();
  const items = rows.slice(0, q.limit).map((r) => ({ id: r.id, type: r.type, modified: r.modified, dateAdded: Number(r.date_added), body: null }));
  return { items, more: rows.length > q.limit };
}

/** A listed object with its stored body, or with the records to render it from (RENDERED_ON_READ). */
interface RowWithBody {
  id: string;
  type: string;
  modified: string;
  date_added: number;
  body: string;
  /** `modified` of the stored version, which the body shows. */
  body_modified: string;
  iid: number | null;
  tid: number | null;
  i_value: string | null;
  i_type: string | null;
  i_risk: string | null;
  i_stamp_added: string | null;
  i_retired: number | null;
  i_attributes: string | null;
  i_organization: string | null;
  l_stamp_linked: string | null;
  l_category: string | null;
  l_generation: number | null;
}

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

const SOURCE_COLUMNS = sql`
  i.value as i_value, i.type as i_type, i.risk as i_risk, i.stamp_added as i_stamp_added, i.retired as i_retired, i.attributes as i_attributes,
  case when i.iid is not null then ${organizationOf(sql.ref('i.iid'))} end as i_organization,
  tl.stamp_linked as l_stamp_linked, t.category as l_category, t.stix_generation as l_generation`;

function listAllWithBodies(q: ObjectListing) {
  return sql<RowWithBody>`
    select c.id, c.type, c.modified, c.date_added, c.body, c.modified as body_modified, c.iid, c.tid, ${SOURCE_COLUMNS}
    from stix_objects c ${sourcesOf('c')}
    where ${listingConditions(q)}
    order by c.date_added, c.id limit ${q.limit + 1}`;
}

function listViewWithBodies(q: ObjectListing) {
  return sql<RowWithBody>`
    select c.id, c.type, c.modified, c.date_added, s.body, s.modified as body_modified, s.iid, s.tid, ${SOURCE_COLUMNS}
    from collection_objects c join stix_objects s on s.id = c.id ${sourcesOf('s')}
    where c.collection = ${q.collection.id} and ${listingConditions(q)}
    order by c.date_added, c.id limit ${q.limit + 1}`;
}

/** The listed object with its stored body, or with the records to render it from. */
function withBodyOrRecord(row: RowWithBody): ListedObject {
  const listed = { id: row.id, type: row.type, modified: row.modified, dateAdded: Number(row.date_added) };
  if (row.body !== '') return { ...listed, body: row.body };
  let record: VersionRecord | undefined;
  if (row.type === 'indicator' && row.i_value !== null) {
    record = {
      kind: 'indicator',
      row: {
        iid: Number(row.iid),
        value: row.i_value,
        type: row.i_type!,
        risk: row.i_risk!,
        stamp_added: row.i_stamp_added,
        retired: row.i_retired,
        attributes: row.i_attributes!,
        organization: row.i_organization,
      },
    };
  } else if (row.type === 'relationship' && row.l_stamp_linked !== null) {
    record = {
      kind: 'link',
      row: { iid: Number(row.iid), tid: Number(row.tid), stamp_linked: row.l_stamp_linked, category: row.l_category!, generation: Number(row.l_generation ?? 0) },
    };
  }
  return { ...listed, body: null, rendered: { modified: row.body_modified, record } };
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
