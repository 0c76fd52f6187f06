// What a MISP feed's files mean (docs/feeds.md, "Structured sources"): the manifest's events to read, and each event's values and threats.
import type { IndicatorType } from '../../indicator-types.js';
import { FeedFormatError, type FeedBatch, type FeedEntry, type FeedRelation, type ThreatRef } from './feed-entry.js';
import { arrayField, field, isObject, textField } from './json-document.js';

/**
 * Attribute types that give values, and the type each value is given. `ip-*` become `ip`, which
 * the pull normalizes as IPv4 or IPv6; the `|port` variants (`192.0.2.1|8080`) give their address.
 * Every other type (`filename|md5`, `domain|ip`, `email-dst`, `text`, ...) is counted as skipped.
 */
const ATTRIBUTE_TYPES: ReadonlyMap<string, IndicatorType> = new Map<string, IndicatorType>([
  ['ip-src', 'ip'],
  ['ip-dst', 'ip'],
  ['ip-src|port', 'ip'],
  ['ip-dst|port', 'ip'],
  ['domain', 'domain'],
  ['hostname', 'domain'],
  ['url', 'url'],
  ['email-src', 'email'],
  ['md5', 'md5'],
  ['sha1', 'sha1'],
  ['sha256', 'sha256'],
]);

/**
 * Galaxies whose clusters are threats, and the category a threat created for a cluster gets (a
 * category the STIX mapping knows: threat actors become intrusion sets, the others malware).
 * Threat-actor galaxies: MISP's own and MITRE ATT&CK's groups (`mitre-intrusion-set`, with the
 * older per-matrix names) and Microsoft's activity groups. Malware galaxies: Malpedia, ATT&CK
 * software that is malware, and MISP's family galaxies. Tools, techniques, sectors, countries and
 * every other galaxy are not threats here and are ignored.
 */
const GALAXY_CATEGORIES: ReadonlyMap<string, string> = new Map([
  ['threat-actor', 'threat-actor'],
  ['mitre-intrusion-set', 'threat-actor'],
  ['mitre-enterprise-attack-intrusion-set', 'threat-actor'],
  ['mitre-mobile-attack-intrusion-set', 'threat-actor'],
  ['mitre-pre-attack-intrusion-set', 'threat-actor'],
  ['microsoft-activity-group', 'threat-actor'],
  ['malpedia', 'malware'],
  ['mitre-malware', 'malware'],
  ['mitre-enterprise-attack-malware', 'malware'],
  ['mitre-mobile-attack-malware', 'malware'],
  ['android', 'malware'],
  ['ransomware', 'ransomware'],
  ['botnet', 'botnet'],
  ['banker', 'banker'],
  ['rat', 'rat'],
  ['stealer', 'stealer'],
  ['backdoor', 'backdoor'],
  ['exploit-kit', 'exploit-kit'],
]);

/** `misp-galaxy:threat-actor="Sofacy"`: the tag MISP puts on an event or attribute for each cluster attached. */
const GALAXY_TAG = /^misp-galaxy:([A-Za-z0-9._-]+)="(.+)"$/s;
/** ATT&CK clusters end with their id (`APT28 - G0007`, `BlackEnergy - S0089`); the threat is the name before it. */
const ATTACK_ID_SUFFIX = /\s+-\s+[GS]\d{4}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface ManifestEvent {
  uuid: string;
  /** Unix seconds; undefined when the manifest gives no usable time (such an event is read on every pull). */
  stamp: number | undefined;
}

/** Unix seconds from a manifest time: MISP writes them as numbers or as strings of digits. */
function seconds(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
  if (typeof value === 'string' && /^\d{1,15}$/.test(value.trim())) return Number(value.trim());
  return undefined;
}

/** The manifest's events newer than `since`, oldest first (undefined times first), and how many keys were not uuids. */
export function newEvents(manifest: unknown, since: number | undefined): { events: ManifestEvent[]; skipped: number } {
  if (!isObject(manifest)) throw new FeedFormatError('manifest.json', 'not an object keyed by event uuid');
  const events: ManifestEvent[] = [];
  let skipped = 0;
  // A uuid is one event whatever its case: listed twice, it would be read twice in one pull.
  const listed = new Set<string>();
  for (const [uuid, entry] of Object.entries(manifest)) {
    if (!UUID.test(uuid)) {
      skipped++;
      continue;
    }
    if (listed.has(uuid.toLowerCase())) throw new FeedFormatError('manifest.json', `event ${uuid} is listed twice`);
    listed.add(uuid.toLowerCase());
    const changed = seconds(field(entry, 'timestamp'));
    const published = seconds(field(entry, 'publish_timestamp'));
    const stamp = changed === undefined ? published : published === undefined ? changed : Math.max(changed, published);
    if (stamp === undefined || since === undefined || stamp > since) events.push({ uuid, stamp });
  }
  events.sort((a, b) => (a.stamp ?? -1) - (b.stamp ?? -1) || (a.uuid < b.uuid ? -1 : a.uuid > b.uuid ? 1 : 0));
  return { events, skipped };
}

/** MISP writes flags as booleans, and older exports as `0`/`1` or `"0"`/`"1"`. */
function flag(value: unknown): boolean {
  return value === true || value === 1 || value === '1' || value === 'true';
}

interface Placed {
  attribute: unknown;
  position: string;
  /** Its object is marked deleted. */
  deleted: boolean;
}

function attributesOf(event: Record<string, unknown>, uuid: string): Placed[] {
  const placed: Placed[] = arrayField(event, 'Attribute').map((attribute, i) => ({ attribute, position: `event ${uuid} attribute ${i}`, deleted: false }));
  arrayField(event, 'Object').forEach((object, j) => {
    const deleted = flag(field(object, 'deleted'));
    arrayField(object, 'Attribute').forEach((attribute, k) => placed.push({ attribute, position: `event ${uuid} object ${j} attribute ${k}`, deleted }));
  });
  return placed;
}

/** The entries and relations of one event file. */
export function readEvent(document: unknown, uuid: string, onlyIds: boolean): FeedBatch {
  const event = field(document, 'Event');
  if (!isObject(event)) throw new FeedFormatError(`${uuid}.json`, 'no "Event" object');
  const placed = attributesOf(event, uuid);
  const eventDeleted = flag(event.deleted);
  const eventThreats = eventDeleted ? [] : threatsOf(event);
  const entries: FeedEntry[] = [];
  const withdrawn: FeedEntry[] = [];
  const relations: FeedRelation[] = [];
  let skipped = 0;
  let eventRefUsed = false;
  for (const { attribute, position, deleted } of placed) {
    const entry = toEntry(attribute, position);
    if (entry === undefined) {
      skipped++;
      continue;
    }
    if (eventDeleted || deleted || flag(field(attribute, 'deleted')) || (onlyIds && !flag(field(attribute, 'to_ids')))) {
      withdrawn.push(entry);
      continue;
    }
    const own = threatsOf(attribute);
    if (own.length === 0) {
      entry.ref = uuid;
      eventRefUsed = true;
    } else {
      entry.ref = `${uuid}/${textField(attribute, 'uuid') ?? position.slice(`event ${uuid} `.length)}`;
      for (const threat of mergeThreats([...eventThreats, ...own])) relations.push({ ref: entry.ref, threat });
    }
    entries.push(entry);
  }
  if (eventRefUsed) for (const threat of eventThreats) relations.push({ ref: uuid, threat });
  const batch: FeedBatch = { entries, skipped };
  if (relations.length > 0) batch.relations = relations;
  if (withdrawn.length > 0) batch.withdrawn = withdrawn;
  return batch;
}

function toEntry(attribute: unknown, position: string): FeedEntry | undefined {
  const misp = textField(attribute, 'type')?.toLowerCase();
  const type = misp === undefined ? undefined : ATTRIBUTE_TYPES.get(misp);
  let value = textField(attribute, 'value');
  if (type === undefined || value === undefined) return undefined;
  if (misp!.endsWith('|port')) value = value.split('|')[0]!.trim();
  return value === '' ? undefined : { value, type, position };
}

/** The threats of the clusters attached to an event or attribute, each once. */
function threatsOf(holder: unknown): ThreatRef[] {
  const found: ThreatRef[] = [];
  for (const galaxy of arrayField(holder, 'Galaxy')) {
    const galaxyType = textField(galaxy, 'type');
    for (const cluster of arrayField(galaxy, 'GalaxyCluster')) {
      const type = galaxyType ?? textField(cluster, 'type') ?? GALAXY_TAG.exec(textField(cluster, 'tag_name') ?? '')?.[1];
      const synonyms = arrayField(field(cluster, 'meta'), 'synonyms').filter((s): s is string => typeof s === 'string');
      const threat = threatRef(type, textField(cluster, 'value'), synonyms);
      if (threat) found.push(threat);
    }
  }
  for (const tag of arrayField(holder, 'Tag')) {
    const match = GALAXY_TAG.exec(textField(tag, 'name') ?? '');
    const threat = match ? threatRef(match[1], match[2], []) : undefined;
    if (threat) found.push(threat);
  }
  return mergeThreats(found);
}

function threatRef(galaxyType: string | undefined, value: string | undefined, synonyms: string[]): ThreatRef | undefined {
  const category = galaxyType === undefined ? undefined : GALAXY_CATEGORIES.get(galaxyType.toLowerCase());
  if (category === undefined || value === undefined) return undefined;
  const name = (galaxyType!.toLowerCase().startsWith('mitre-') ? value.replace(ATTACK_ID_SUFFIX, '') : value).trim();
  if (name === '') return undefined;
  return { name, aliases: synonyms.map((s) => s.trim()).filter((s) => s !== ''), category };
}

/**
 * One threat per category and name (ignoring case), its aliases the union of theirs, none equal to
 * the name: the same cluster comes as a `Galaxy` entry and as its tag, and the event's threats
 * again among an attribute's.
 */
function mergeThreats(threats: ThreatRef[]): ThreatRef[] {
  const merged = new Map<string, ThreatRef>();
  for (const threat of threats) {
    const key = `${threat.category}\u0000${threat.name.toLowerCase()}`;
    const known = merged.get(key) ?? { name: threat.name, aliases: [], category: threat.category };
    merged.set(key, known);
    for (const alias of threat.aliases) {
      const folded = alias.toLowerCase();
      if (folded !== known.name.toLowerCase() && !known.aliases.some((a) => a.toLowerCase() === folded)) known.aliases.push(alias);
    }
  }
  return [...merged.values()];
}
