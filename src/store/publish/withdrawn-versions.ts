// The STIX versions clients hold of the indicators a feed delete withdraws, kept as bodies before the
// delete's ingest stage changes their records (apply.ts), so that their revoked versions repeat them.
import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { renderStoredVersion } from '../../stix/project-records.js';
import { onlyGivenBy } from '../ingest/feed-delete.js';
import { liveObjects } from './stix-revocation.js';
import { readIndicators } from './stix-rows.js';

/** Indicators read per statement. */
const CHUNK = 1000;

/**
 * Stores the body of each live indicator object that only feed `fid` gives, as its records render it
 * now, which is what TAXII serves of it: its organization (created_by_ref) comes from the feed, which
 * the delete then removes, and its risk from its row, which the delete retires. The write's STIX sync
 * then revokes those objects from these bodies (stix-revocation.ts reads a stored body first). Their
 * relationships need none: their threat links stay, and render as they did.
 */
export async function keepWithdrawnVersions(db: Kysely<Database>, fid: number): Promise<void> {
  for (let after = Number.MIN_SAFE_INTEGER; ; ) {
    const { rows } = await sql<{ iid: number }>`select o.iid from (${onlyGivenBy(fid)}) as o where o.iid > ${after} order by o.iid limit ${CHUNK}`.execute(db);
    if (rows.length === 0) return;
    const iids = rows.map((r) => Number(r.iid));
    after = iids.at(-1)!;
    const objects = await liveObjects(db, sql`s.iid in (${sql.join(iids)}) and s.type = 'indicator' and s.body = ''`);
    const records = new Map((await readIndicators(db, objects.map((o) => o.iid!))).map((row) => [Number(row.iid), row]));
    for (const object of objects) {
      // As the TAXII read renders an object without a stored body (queries/stix-queries.ts).
      const row = records.get(object.iid!);
      const body = renderStoredVersion(object.id, object.modified, row === undefined ? undefined : { kind: 'indicator', row });
      if (body !== undefined) await db.updateTable('stix_objects').set({ body }).where('id', '=', object.id).execute();
    }
    if (rows.length < CHUNK) return;
  }
}
