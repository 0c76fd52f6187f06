// The STIX side of observations (docs/stix-mapping.md, "Sightings"): a new version of each threat
// whose last_seen an observation moved, and of each sighted indicator's sighting object. Nothing
// else: an observation changes no record's other fields, no link and no aggregate.
import { sql, type Kysely } from 'kysely';
import { isRetired, stixIdForSighting, toStixSighting } from '../../stix/index.js';
import { threatSource, type ObjectSource } from '../../stix/project-records.js';
import type { ChangeSet } from '../changes/change-set.js';
import type { Database } from '../db/schema.js';
import { CHUNK, readThreats } from './stix-rows.js';

/** What this step needs of the STIX sync's VersionWriter (stix-sync.ts). */
export interface ObservationVersionWriter {
  /** `modified` of this write's versions; also the `created` of objects it publishes first. */
  readonly now: string;
  write(sources: ObjectSource[]): Promise<ObjectSource[]>;
}

/** The keys a change set query gives, in order, a page at a time. */
async function* pagesOf(db: Kysely<Database>, ids: ReturnType<ChangeSet['changedIds']>): AsyncGenerator<number[]> {
  for (let after = Number.MIN_SAFE_INTEGER; ; ) {
    const { rows } = await sql<{ id: number }>`select c.id from (${ids}) as c where c.id > ${after} order by c.id limit ${CHUNK}`.execute(db);
    if (rows.length === 0) return;
    const page = rows.map((r) => Number(r.id));
    yield page;
    after = page.at(-1)!;
  }
}

/**
 * New versions for what the write observed: the threats whose stamp_seen moved (their SDO's
 * `last_seen`), and with `sightings` (config `stix.sightings`) the sighting of each indicator whose
 * sightings changed. A threat the write also changed as a record was rendered with the others.
 */
export async function syncObservations(db: Kysely<Database>, changes: ChangeSet, writer: ObservationVersionWriter, sightings: boolean): Promise<void> {
  for await (const tids of pagesOf(db, changes.changedIds('seen-threats'))) await writeSeenThreats(db, writer, tids);
  if (!sightings) return;
  for await (const iids of pagesOf(db, changes.changedIds('sighted-indicators'))) await writeSightings(db, writer, iids);
}

/**
 * A retired threat is left as it is: its object's last version is revoked, and revocation is final
 * (STIX 2.1 §3.2), so no later version may follow; it stays retired (docs/interface.md section 3).
 */
async function writeSeenThreats(db: Kysely<Database>, writer: ObservationVersionWriter, tids: number[]): Promise<void> {
  const rows = await db.selectFrom('threats').select(['tid', 'stix_generation']).where('tid', 'in', tids).execute();
  const generations = new Map(rows.map((r) => [Number(r.tid), Number(r.stix_generation)]));
  const active = (await readThreats(db, tids)).filter((t) => !isRetired(t));
  await writer.write(active.map((t) => threatSource(t, generations.get(t.tid) ?? 0)));
}

/**
 * The sighting of each indicator that has a live STIX indicator to point at (`sighting_of_ref` must
 * name an object that exists: an indicator of a type without a pattern has none, and a revoked one
 * is final). A later version repeats the `created` of the stored one (§3.2).
 */
async function writeSightings(db: Kysely<Database>, writer: ObservationVersionWriter, iids: number[]): Promise<void> {
  const { rows } = await sql<{ iid: number; sightings: number; first_seen: string; last_seen: string }>`
    select i.iid, i.sightings, i.stamp_first_sighted as first_seen, i.stamp_sighted as last_seen from indicators i
    where i.iid in (${sql.join(iids)}) and i.sightings > 0 and i.stamp_first_sighted is not null and i.stamp_sighted is not null
      and exists (select 1 from stix_objects s where s.iid = i.iid and s.type = 'indicator' and s.revoked = 0)
    order by i.iid`.execute(db);
  if (rows.length === 0) return;
  const ids = rows.map((r) => stixIdForSighting(Number(r.iid)));
  const stored = await db.selectFrom('stix_objects').select(['id', 'body']).where('id', 'in', ids).execute();
  const created = new Map(stored.map((s) => [s.id, createdOf(s.body)]));
  await writer.write(
    rows.map((r, n) => {
      const summary = { iid: Number(r.iid), sightings: Number(r.sightings), firstSeen: r.first_seen, lastSeen: r.last_seen };
      const first = created.get(ids[n]!) ?? writer.now;
      return { id: ids[n]!, iid: summary.iid, tid: null, render: (modified: string) => toStixSighting(summary, { modified, created: first }) };
    }),
  );
}

/** The `created` a stored version shows; undefined when its body does not say (then this version is the first). */
function createdOf(body: string): string | undefined {
  try {
    const created = (JSON.parse(body) as { created?: unknown }).created;
    return typeof created === 'string' ? created : undefined;
  } catch {
    return undefined;
  }
}
