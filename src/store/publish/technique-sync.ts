// The STIX side of threats' ATT&CK techniques (docs/stix-mapping.md): their attack-patterns and the threats' relationships to them.
import { sql, type Kysely } from 'kysely';
import type { Threat } from '../../domain.js';
import {
  mergeTechniqueUses,
  stixIdForAttackPattern,
  stixIdForTechniqueUse,
  stixIdForThreat,
  stixIdType,
  threatTechniques,
  toStixAttackPattern,
  toStixTechniqueUse,
} from '../../stix/index.js';
import { stixIdForReactivation } from '../../stix/stix-id.js';
import { storedIdentityCreated, type ObjectSource } from '../../stix/project-records.js';
import { readMeta, writeMeta } from '../db/meta.js';
import type { Database } from '../db/schema.js';
import { liveObjects, type StoredObject } from './stix-revocation.js';
import { CHUNK, readThreats } from './stix-rows.js';

/** Set once every threat's techniques are in threat_techniques (technique-migration.ts). */
export const TECHNIQUES_KEY = 'threat_techniques_synced';

/** What this step needs of the STIX sync's VersionWriter (stix-sync.ts). */
export interface TechniqueVersionWriter {
  /** `modified` of this import's versions; also the `created` of objects it publishes first. */
  readonly now: string;
  write(sources: ObjectSource[]): Promise<ObjectSource[]>;
  revoke(objects: readonly StoredObject[]): Promise<void>;
}

/** The changed threats as the STIX sync just wrote them: records, the ids of those with a STIX form, generations. */
export interface ChangedThreats {
  records: readonly Threat[];
  objectIds: ReadonlyMap<number, string>;
  generations: ReadonlyMap<number, number>;
}

interface TechniqueRow {
  tid: number;
  technique: string;
  name: string | null;
  tactics: string;
  attack_pattern: string;
  active: number;
  round: number;
}

/**
 * Brings the techniques of the changed threats into STIX: the threats' rows in threat_techniques,
 * a new version of each attack-pattern whose merged name or tactics changed (few, and only those of
 * techniques these threats cite or cited), each threat's relationships to its techniques, and the
 * revoked final version of the relationships the threats no longer have (a technique dropped, or
 * the threat's object replaced: another SDO type, a reactivation). The work follows the threats
 * changed; the first run after migration 0011 also covers every other threat once (TECHNIQUES_KEY).
 * Into a fresh store nothing is read back: no object exists yet.
 */
export async function syncTechniques(db: Kysely<Database>, writer: TechniqueVersionWriter, changed: ChangedThreats, fresh: boolean): Promise<void> {
  await syncThreatTechniques(db, writer, changed, fresh);
  if ((await readMeta(db, TECHNIQUES_KEY)) !== undefined) return;
  if (!fresh) await backfillTechniques(db, writer, new Set(changed.records.map((t) => t.tid)));
  await writeMeta(db, TECHNIQUES_KEY, '1');
}

/** True when the store has yet to publish the techniques of the threats it held before migration 0011. */
export async function techniquesPending(db: Kysely<Database>): Promise<boolean> {
  if ((await readMeta(db, TECHNIQUES_KEY)) !== undefined) return false;
  return (await db.selectFrom('threats').select('tid').limit(1).executeTakeFirst()) !== undefined;
}

/** Every threat not already synced, with the ids its objects have now (a threat without one has no relationships). */
async function backfillTechniques(db: Kysely<Database>, writer: TechniqueVersionWriter, done: ReadonlySet<number>): Promise<void> {
  for (let after = -1; ; ) {
    const page = await db.selectFrom('threats').select(['tid', 'stix_generation']).where('tid', '>', after).orderBy('tid').limit(CHUNK).execute();
    if (page.length === 0) return;
    after = Number(page.at(-1)!.tid);
    const generations = new Map(page.map((r) => [Number(r.tid), Number(r.stix_generation)]));
    const records = await readThreats(db, [...generations.keys()].filter((tid) => !done.has(tid)));
    const ids = new Map(records.map((t) => [t.tid, stixIdForThreat(t, generations.get(t.tid) ?? 0)]));
    const existing = ids.size === 0 ? [] : await db.selectFrom('stix_objects').select('id').where('id', 'in', [...ids.values()]).execute();
    const live = new Set(existing.map((r) => r.id));
    const objectIds = new Map([...ids].filter(([, id]) => live.has(id)));
    await syncThreatTechniques(db, writer, { records, objectIds, generations }, false);
  }
}

async function syncThreatTechniques(db: Kysely<Database>, writer: TechniqueVersionWriter, changed: ChangedThreats, fresh: boolean): Promise<void> {
  const affected = new Set<string>();
  for (let i = 0; i < changed.records.length; i += CHUNK) {
    const threats = changed.records.slice(i, i + CHUNK);
    const rows = await writeThreatRows(db, threats, fresh, affected);
    await syncUses(db, writer, threats, rows, changed, fresh);
  }
  const techniques = [...affected].sort();
  for (let i = 0; i < techniques.length; i += CHUNK) await syncAttackPatterns(db, writer, techniques.slice(i, i + CHUNK), fresh);
}

/**
 * Replaces the rows of these threats by what their ttps cite now: a technique no longer cited stays,
 * inactive, one round up; one cited again becomes active in the round it had. Adds to `affected`
 * every technique whose attack-pattern these threats took part in, before or now.
 */
async function writeThreatRows(db: Kysely<Database>, threats: readonly Threat[], fresh: boolean, affected: Set<string>): Promise<TechniqueRow[]> {
  const tids = threats.map((t) => t.tid);
  const stored = fresh ? [] : ((await db.selectFrom('threat_techniques').selectAll().where('tid', 'in', tids).execute()) as TechniqueRow[]);
  const before = new Map(stored.map((r) => [`${r.tid}:${r.technique}`, r]));
  const storedOf = new Map<number, TechniqueRow[]>();
  for (const r of stored) {
    const list = storedOf.get(Number(r.tid));
    if (list === undefined) storedOf.set(Number(r.tid), [r]);
    else list.push(r);
  }
  const rows: TechniqueRow[] = [];
  for (const threat of threats) {
    const cited = new Set<string>();
    for (const t of threatTechniques(threat.ttps).techniques) {
      const previous = before.get(`${threat.tid}:${t.technique}`);
      cited.add(t.technique);
      affected.add(t.technique);
      rows.push({
        tid: threat.tid,
        technique: t.technique,
        name: t.name,
        tactics: JSON.stringify(t.tactics),
        attack_pattern: stixIdForAttackPattern(t.technique),
        active: 1,
        round: Number(previous?.round ?? 0),
      });
    }
    for (const r of storedOf.get(threat.tid) ?? []) {
      if (cited.has(r.technique)) continue;
      const dropped = Number(r.active) === 1;
      if (dropped) affected.add(r.technique);
      rows.push({ ...r, tid: threat.tid, active: 0, round: Number(r.round) + (dropped ? 1 : 0) });
    }
  }
  if (!fresh) await db.deleteFrom('threat_techniques').where('tid', 'in', tids).execute();
  for (let i = 0; i < rows.length; i += 400) await db.insertInto('threat_techniques').values(rows.slice(i, i + 400)).execute();
  return rows;
}

/**
 * Each threat's relationships to the techniques it cites, and the revoked final version of its
 * other relationships without an indicator, except the `derived-from` ones of its reactivations.
 * A threat without a STIX object (objectIds) has none: the STIX sync revokes all of its objects.
 */
async function syncUses(
  db: Kysely<Database>,
  writer: TechniqueVersionWriter,
  threats: readonly Threat[],
  rows: readonly TechniqueRow[],
  changed: ChangedThreats,
  fresh: boolean,
): Promise<void> {
  const withObject = threats.map((t) => t.tid).filter((tid) => changed.objectIds.has(tid));
  if (withObject.length === 0) return;
  const live = fresh ? [] : await liveObjects(db, sql`s.tid in (${sql.join(withObject)}) and s.iid is null and s.type = 'relationship'`);
  const created = new Map(live.map((o) => [o.id, storedIdentityCreated(o.body)]));
  const kept = new Set<string>();
  const sources: ObjectSource[] = [];
  for (const row of rows) {
    const sourceRef = changed.objectIds.get(row.tid);
    if (sourceRef === undefined || Number(row.active) !== 1) continue;
    const generation = changed.generations.get(row.tid) ?? 0;
    const use = { tid: row.tid, technique: row.technique, generation, round: Number(row.round) };
    const id = stixIdForTechniqueUse(use.tid, stixIdType(sourceRef), use.technique, generation, use.round);
    const first = created.get(id) ?? writer.now;
    kept.add(id);
    sources.push({ id, iid: null, tid: row.tid, render: (modified) => toStixTechniqueUse({ ...use, created: first }, { modified, sourceRef }) });
  }
  await writer.write(sources);
  for (const tid of withObject) for (let g = 1; g <= (changed.generations.get(tid) ?? 0); g++) kept.add(stixIdForReactivation(tid, g));
  await writer.revoke(live.filter((o) => !kept.has(o.id)));
}

/** A new version of each technique's attack-pattern whose merged name or tactics changed; one no threat cites any more stays as it was. */
async function syncAttackPatterns(db: Kysely<Database>, writer: TechniqueVersionWriter, techniques: readonly string[], fresh: boolean): Promise<void> {
  const rows = await db
    .selectFrom('threat_techniques')
    .select(['tid', 'technique', 'name', 'tactics'])
    .where('technique', 'in', techniques)
    .where('active', '=', 1)
    .orderBy('technique')
    .orderBy('tid')
    .execute();
  const byTechnique = new Map<string, { tid: number; name: string | null; tactics: string[] }[]>();
  for (const r of rows) {
    let uses = byTechnique.get(r.technique);
    if (uses === undefined) byTechnique.set(r.technique, (uses = []));
    uses.push({ tid: Number(r.tid), name: r.name, tactics: JSON.parse(r.tactics) as string[] });
  }
  const ids = [...byTechnique.keys()].map(stixIdForAttackPattern);
  const stored = fresh || ids.length === 0 ? [] : await db.selectFrom('stix_objects').select(['id', 'body']).where('id', 'in', ids).execute();
  const created = new Map(stored.map((o) => [o.id, storedIdentityCreated(o.body)]));
  const sources: ObjectSource[] = [];
  for (const [technique, uses] of byTechnique) {
    const id = stixIdForAttackPattern(technique);
    const record = { technique, ...mergeTechniqueUses(technique, uses), created: created.get(id) ?? writer.now };
    sources.push({ id, iid: null, tid: null, render: (modified) => toStixAttackPattern(record, { modified }) });
  }
  await writer.write(sources);
}
