// Expands the threat catalog into full Threat records: dates, TTPs, news, comments and relations.

import type { CommentItem, NewsItem, Threat } from '../domain.js';
import { attackTechnique } from './attack-techniques.js';
import { DAY, toStamp } from './demo-time.js';
import { createPrng, type Prng } from './prng.js';
import { THREAT_SEEDS, type ThreatSeed } from './threat-catalog.js';

const THREAT_SEED = 0x7e1ea5e;

const NEWS_CHANNELS = [
  { channel: 'Nightwatch Research Blog', host: 'blog.nightwatch-research.example' },
  { channel: 'The Packet Ledger', host: 'packetledger.example' },
  { channel: 'Kestrel Cyber Defense Advisories', host: 'advisories.kestrel-cyber.example' },
  { channel: 'Open Abuse Collective Weekly', host: 'weekly.openabuse.example' },
] as const;

const NEWS_ANGLES = [
  'resurfaces with new infrastructure',
  'operators rotate domains after takedown',
  'campaign targets logistics sector',
  'adds new evasion tricks',
  'infrastructure mapped across 14 hosting providers',
  'linked to wave of credential theft',
] as const;

const USERNAMES = ['analyst_jk', 'sinkhole-ops', 'm.okafor', 'dfir_rosa', 'tlp-amber', 'hunter42'] as const;

const COMMENT_TEMPLATES = [
  ['New C2 range', 'Seeing fresh servers for this one in the 5.x and 185.x space since last week.'],
  ['False positive?', 'One of the linked domains is a parked page now; consider lowering its risk.'],
  ['Sample hash', 'Shared a sample with the usual partners; the config decrypts with the known key.'],
  ['Still active', 'Our honeypots logged hits from this family overnight, so it is not dead yet.'],
] as const;

const MOTIVATION: Readonly<Record<string, string>> = {
  apt: 'espionage',
  scanner: 'reconnaissance',
  botnet: 'financial',
};

/** How many days before now a stale threat was last seen: at least `min`, under `max` (the lifecycle retires after 90). */
const STALE_SEEN_DAYS = { min: 100, max: 400 } as const;

/** Builds all demo threats; tids are 1..N in catalog order. `now` is the demo's anchor (epoch seconds). */
export function generateThreats(now: number): Threat[] {
  const prng = createPrng(THREAT_SEED);
  const tidByName = new Map(THREAT_SEEDS.map((seed, index) => [seed.name, index + 1]));
  const related = relatedTids(tidByName);
  const nextCid = counter(1001);
  return THREAT_SEEDS.map((seed, index) => buildThreat(seed, index + 1, prng, related.get(index + 1) ?? [], nextCid, now));
}

function buildThreat(seed: ThreatSeed, tid: number, prng: Prng, related: number[], nextCid: () => number, now: number): Threat {
  const dates = threatDates(seed, prng, now);
  const withWiki = tid % 3 !== 0;
  return {
    tid,
    threat: seed.name,
    category: seed.category,
    // A retired threat carries the `retired` risk level so risk counts and state agree (docs/interface.md section 2.3).
    risk: seed.retired ? 'retired' : seed.risk,
    othernames: [...seed.aliases],
    description: `${seed.blurb} First catalogued in ${toStamp(dates.added).slice(0, 4)}.`,
    notes: threatNotes(seed, tid),
    wikisummary: withWiki ? `${seed.name} is a ${seed.family.replaceAll('-', ' ')} affecting ${seed.platforms.join(', ')} systems.` : null,
    wikireference: withWiki ? `https://encyclopedia.example/wiki/${encodeURIComponent(seed.name.replaceAll(' ', '_'))}` : null,
    retired: seed.retired === true,
    stamp_added: toStamp(dates.added),
    stamp_updated: toStamp(dates.updated),
    stamp_seen: toStamp(dates.seen),
    stamp_retired: dates.retired === null ? null : toStamp(dates.retired),
    attributes: { family: seed.family, platforms: [...seed.platforms], motivation: MOTIVATION[seed.category] ?? 'financial' },
    ttps: seed.ttps.map((id) => ({ ...attackTechnique(id) })),
    news: tid % 4 === 0 ? [] : newsItems(seed, prng, dates.added, dates.seen),
    comments: tid % 3 === 1 ? commentItems(prng, dates.added, nextCid, now) : [],
    related,
  };
}

interface ThreatDates {
  added: number;
  updated: number;
  seen: number;
  retired: number | null;
}

/**
 * Active threats were seen in the last three weeks; retired ones went silent for over three
 * months first (docs/interface.md section 3). The stale ones of the catalog (Sable Tern, Ghostreed, Petrel
 * Proxy, Driftglass DGA) are still active but were last seen 100-400 days ago, so the lifecycle's
 * first run retires them. A stale threat makes the same draws as an active one, so the threats
 * after it come out the same as if it were active.
 */
function threatDates(seed: ThreatSeed, prng: Prng, now: number): ThreatDates {
  const jitter = (): number => prng.int(0, DAY - 1);
  if (seed.retired) {
    const added = now - prng.int(1500, 2800) * DAY - jitter();
    const seen = now - prng.int(420, 900) * DAY - jitter();
    const retired = seen + prng.int(91, 120) * DAY + jitter();
    return { added, updated: retired, seen, retired };
  }
  // A stale threat was added before its last sighting: at least STALE_SEEN_DAYS.max days ago.
  const addedDays = prng.int(180, 2200) + (seed.stale ? STALE_SEEN_DAYS.max : 0);
  const added = now - addedDays * DAY - jitter();
  // The jitter stays under a day, so a stale threat's silence stays under STALE_SEEN_DAYS.max days.
  const seenDays = seed.stale ? prng.int(STALE_SEEN_DAYS.min, STALE_SEEN_DAYS.max - 1) : prng.int(0, 20);
  const seen = now - seenDays * DAY - jitter();
  const updated = seen - prng.int(0, 5) * DAY - jitter();
  return { added, updated: Math.max(added, updated), seen, retired: null };
}

function threatNotes(seed: ThreatSeed, tid: number): string | null {
  if (seed.retired) return `Rated ${seed.risk} while active. Kept for historical lookups.`;
  if (tid % 2 === 0) return null;
  return seed.aliases.length > 0
    ? `Also tracked as ${seed.aliases.join(', ')}; aliases are matched by threat lookups.`
    : 'No widely used aliases.';
}

/** Newest first; the newest story is the one the threat page features (`primary: 1`). */
function newsItems(seed: ThreatSeed, prng: Prng, from: number, to: number): NewsItem[] {
  const stamps = Array.from({ length: prng.int(1, 4) }, () => prng.int(from, to)).sort((a, b) => b - a);
  return stamps.map((stamp, index) => {
    const source = prng.pick(NEWS_CHANNELS);
    const title = `${seed.name} ${prng.pick(NEWS_ANGLES)}`;
    const slug = title.toLowerCase().replace(/[^a-z0-9]+/g, '-');
    return {
      title,
      channel: source.channel,
      icon: `https://${source.host}/favicon.ico`,
      link: `https://${source.host}/${toStamp(stamp).slice(0, 7).replace('-', '/')}/${slug}`,
      stamp: toStamp(stamp),
      primary: index === 0 ? 1 : 0,
    };
  });
}

function commentItems(prng: Prng, from: number, nextCid: () => number, now: number): CommentItem[] {
  return prng.sample(COMMENT_TEMPLATES, prng.int(1, 3)).map(([title, comment]) => {
    const added = prng.int(from, now - DAY);
    const updated = prng.chance(0.3) ? prng.int(added, now) : added;
    return { cid: nextCid(), username: prng.pick(USERNAMES), title, comment, stamp_added: toStamp(added), stamp_updated: toStamp(updated) };
  });
}

/** Makes catalog relations symmetric: if A names B, B lists A too. */
function relatedTids(tidByName: ReadonlyMap<string, number>): Map<number, number[]> {
  const related = new Map<number, Set<number>>();
  const add = (from: number, to: number): void => {
    if (from === to) return;
    const set = related.get(from) ?? new Set<number>();
    set.add(to);
    related.set(from, set);
  };
  THREAT_SEEDS.forEach((seed, index) => {
    for (const name of seed.related ?? []) {
      const other = tidByName.get(name);
      if (other === undefined) throw new RangeError(`threat catalog: ${seed.name} relates to unknown ${name}`);
      add(index + 1, other);
      add(other, index + 1);
    }
  });
  return new Map([...related].map(([tid, set]) => [tid, [...set].sort((a, b) => a - b)]));
}

function counter(start: number): () => number {
  let value = start;
  return () => value++;
}
