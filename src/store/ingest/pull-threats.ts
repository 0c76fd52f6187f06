// The threats a pull names (docs/feeds.md, "What a pull does with each row"): found by name or other
// name, or created active with the source's risk; an existing threat takes the other names the
// source gives it that it lacks. Fills pull_threats for the links the pull makes (pull-writer.ts).
import { sql, type Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import type { PullPlan } from '../contract/commands.js';
import { noteChanged } from '../changes/change-set.js';
import { pullTables } from './pull-tables.js';
import { newThreatRow } from './threat-rows.js';

/**
 * Other names a pull lets a threat reach, at most: past it a pull adds none (a file import still
 * may). A source that gives a threat a new alias each time cannot grow it without end.
 */
export const MAX_PULLED_OTHERNAMES = 64;

/** Names per `in (...)` list, and rows per multi-row INSERT. */
const SLICE = 400;

/** What the pull says of the threat a name key stands for: how to write it, its category and aliases. */
interface Named {
  name: string;
  category: string;
  aliases: string[];
}

/** The threats the pull names, by lower-cased name: the source's, its rows', and those its objects indicate. */
async function namedThreats(trx: Transaction<Database>, plan: PullPlan): Promise<Map<string, Named>> {
  // Values of upstream objects that indicate threats get those threats.
  // Sorted by its key, pull_value_threats is filled in order rather than at random; pairs that repeat
  // are left out by the conflict clause, with no DISTINCT of their own.
  await sql`insert into pull_value_threats (type, value, name)
    select r.type, r.value, t.name from pull_value_refs r join pull_ref_threats t on t.ref = r.ref
    order by r.type, r.value, t.name
    on conflict do nothing`.execute(trx);
  const defs = new Map<string, { category: string; aliases: string[] }>();
  for (const d of await pullTables(trx).selectFrom('pull_threat_defs').selectAll().execute()) {
    defs.set(d.name_key, { category: d.category, aliases: (JSON.parse(d.aliases) as string[]).filter((a) => typeof a === 'string' && a.trim() !== '') });
  }
  const names = new Map<string, Named>();
  const add = (name: string, category: string | undefined) => {
    const key = name.toLowerCase();
    if (names.has(key)) return;
    const def = defs.get(key);
    names.set(key, { name, category: category ?? def?.category ?? 'malware', aliases: def?.aliases ?? [] });
  };
  // The source's own threat takes the category its `threat` option gives, whatever an object says.
  if (plan.sourceThreat !== null) add(plan.sourceThreat.name, plan.sourceThreat.category);
  for (const { name } of await pullTables(trx).selectFrom('pull_value_threats').select('name').distinct().execute()) add(name, undefined);
  return names;
}

/** The lowest tid of each name key the store has, of those given. */
async function knownKeys(trx: Transaction<Database>, keys: Iterable<string>): Promise<Map<string, number>> {
  const known = new Map<string, number>();
  const list = [...keys];
  for (let i = 0; i < list.length; i += SLICE) {
    const rows = await trx
      .selectFrom('threat_names')
      .select(['name_key', (eb) => eb.fn.min('tid').as('tid')])
      .where('name_key', 'in', list.slice(i, i + SLICE))
      .groupBy('name_key')
      .execute();
    for (const r of rows) known.set(r.name_key, Number(r.tid));
  }
  return known;
}

/**
 * Adds to each threat found the aliases the pull gave it that no threat is known by yet (case
 * ignored), up to MAX_PULLED_OTHERNAMES other names: its othernames, its name keys, and a changed
 * record (stamp_updated, a new STIX version with the aliases). An alias that already names another
 * threat is left out, so that a pull never makes one name find two threats. Returns the tids changed.
 */
async function addAliases(trx: Transaction<Database>, plan: PullPlan, given: Map<number, string[]>, known: Map<string, number>): Promise<number[]> {
  const tids = [...given.keys()].sort((a, b) => a - b);
  const changed: number[] = [];
  for (let i = 0; i < tids.length; i += SLICE) {
    const rows = await trx.selectFrom('threats').select(['tid', 'othernames']).where('tid', 'in', tids.slice(i, i + SLICE)).orderBy('tid').execute();
    for (const row of rows) {
      const tid = Number(row.tid);
      const stored: unknown = JSON.parse(row.othernames);
      // A record whose othernames is not a list of names (none a file import writes) is left as it is.
      if (!Array.isArray(stored)) continue;
      const othernames = [...(stored as string[])];
      const added: string[] = [];
      for (const alias of given.get(tid)!) {
        if (othernames.length >= MAX_PULLED_OTHERNAMES) break;
        const key = alias.toLowerCase();
        if (known.has(key)) continue;
        known.set(key, tid);
        othernames.push(alias);
        added.push(key);
      }
      if (added.length === 0) continue;
      await trx.updateTable('threats').set({ othernames: JSON.stringify(othernames), stamp_updated: plan.at, content_hash: '' }).where('tid', '=', tid).execute();
      await trx.insertInto('threat_names').values(added.map((name_key) => ({ name_key, tid }))).execute();
      changed.push(tid);
    }
  }
  return changed;
}

/** What resolving the pull's threats did. */
export interface ResolvedThreats {
  /** The tids created. */
  created: number[];
  /** Threats found (or created by an earlier name of the pull) that took other names from it. */
  enriched: number[];
}

/**
 * The threats the pull names, found by name or other name (the lowest tid; a described threat also
 * by any of its aliases), or created: with the category and other names the source describes (the
 * source's own threat with its `threat` option's category), else category malware (docs/feeds.md); active,
 * with the source's risk. A threat found takes the aliases it lacks (addAliases). Fills
 * pull_threats.
 */
export async function resolveThreats(trx: Transaction<Database>, plan: PullPlan): Promise<ResolvedThreats> {
  const names = await namedThreats(trx, plan);
  if (names.size === 0) return { created: [], enriched: [] };
  // Every key a threat may be found by: its name, then its aliases.
  const keys = new Set<string>();
  for (const [key, named] of names) {
    keys.add(key);
    for (const alias of named.aliases) keys.add(alias.toLowerCase());
  }
  const known = await knownKeys(trx, keys);
  const created: number[] = [];
  const found = new Map<string, number>();
  // The aliases the pull gives each threat it found, in the order it gives them.
  const aliasesOf = new Map<number, string[]>();
  let next = Number((await trx.selectFrom('threats').select((eb) => eb.fn.max('tid').as('top')).executeTakeFirst())?.top ?? 0) + 1;
  for (const [key, named] of names) {
    const existing = known.get(key) ?? named.aliases.map((a) => known.get(a.toLowerCase())).find((tid) => tid !== undefined);
    if (existing !== undefined) {
      found.set(key, existing);
      if (named.aliases.length > 0) aliasesOf.set(existing, [...(aliasesOf.get(existing) ?? []), ...named.aliases]);
      continue;
    }
    const tid = next++;
    const othernames = [...new Set(named.aliases.filter((a) => a.toLowerCase() !== key))];
    await trx.insertInto('threats').values(newThreatRow(tid, { name: named.name, category: named.category, othernames, risk: plan.sourceRisk }, plan.at)).execute();
    const nameKeys = [...new Set([key, ...othernames.map((n) => n.toLowerCase())])];
    await trx.insertInto('threat_names').values(nameKeys.map((name_key) => ({ name_key, tid }))).execute();
    // A later name of this pull that is an alias of this one is the same threat.
    for (const nameKey of nameKeys) if (!known.has(nameKey)) known.set(nameKey, tid);
    found.set(key, tid);
    created.push(tid);
  }
  const enriched = await addAliases(trx, plan, aliasesOf, known);
  await noteChanged(trx, 'threats', [...created, ...enriched]);
  const rows = [...found].map(([name_key, tid]) => ({ name_key, tid }));
  for (let i = 0; i < rows.length; i += SLICE) await pullTables(trx).insertInto('pull_threats').values(rows.slice(i, i + SLICE)).execute();
  return { created, enriched };
}
