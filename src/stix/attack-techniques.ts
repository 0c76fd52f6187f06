// MITRE ATT&CK techniques in a threat's ttps: technique ids, tactics as kill chain phases, and the merge of what several threats say.

/**
 * An ATT&CK (Enterprise, Mobile or ICS) technique id: `T` and four digits, optionally `.` and the
 * three digits of a sub-technique (T1566, T1566.001). Matched without regard to letter case.
 */
export const ATTACK_TECHNIQUE_ID = /^T\d{4}(?:\.\d{3})?$/i;

/** ATT&CK's kill chain, as its own STIX data names it in every attack-pattern's kill_chain_phases. */
export const ATTACK_KILL_CHAIN = 'mitre-attack';

/** A phase name in ATT&CK's form: lower case words joined by single hyphens ("initial-access"). */
const PHASE_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** The technique id in upper case ("t1566.001" → "T1566.001"), or undefined when `value` is none. */
export function attackTechniqueId(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const id = value.trim();
  return ATTACK_TECHNIQUE_ID.test(id) ? id.toUpperCase() : undefined;
}

/**
 * The technique's page on attack.mitre.org, written as ATT&CK's STIX data writes it: a
 * sub-technique's dot becomes a path segment, no trailing slash
 * (T1566.001 → https://attack.mitre.org/techniques/T1566/001).
 */
export function attackTechniqueUrl(techniqueId: string): string {
  return `https://attack.mitre.org/techniques/${techniqueId.replace('.', '/')}`;
}

/**
 * A tactic as an ATT&CK kill chain phase name: lower case, runs of spaces, underscores and hyphens
 * one hyphen ("Initial Access", "initial_access" → "initial-access"). Undefined for a tactic that
 * leaves no such name (blank, or other characters than letters and digits).
 */
export function attackPhaseName(tactic: unknown): string | undefined {
  if (typeof tactic !== 'string') return undefined;
  const name = tactic.trim().toLowerCase().replace(/[\s_-]+/g, '-');
  return PHASE_NAME.test(name) ? name : undefined;
}

/** What one threat says of one technique: the first name it gives, and every tactic (sorted phase names). */
export interface ThreatTechnique {
  technique: string;
  name: string | null;
  tactics: string[];
}

/**
 * The techniques of a threat's ttps items, each once, in the order first named. An item names its
 * technique with `id` (as the demo's do) or else `technique_id`; its tactic is `tactic`,
 * a string or a list. Items without a valid technique id are counted in `skipped`, never an error.
 */
export function threatTechniques(ttps: readonly unknown[]): { techniques: ThreatTechnique[]; skipped: number } {
  const byId = new Map<string, ThreatTechnique>();
  let skipped = 0;
  for (const item of ttps) {
    const fields = typeof item === 'object' && item !== null ? (item as Record<string, unknown>) : {};
    const technique = attackTechniqueId(fields.id) ?? attackTechniqueId(fields.technique_id);
    if (technique === undefined) {
      skipped++;
      continue;
    }
    let entry = byId.get(technique);
    if (entry === undefined) byId.set(technique, (entry = { technique, name: null, tactics: [] }));
    if (entry.name === null && typeof fields.name === 'string' && fields.name.trim() !== '') entry.name = fields.name.trim();
    for (const tactic of Array.isArray(fields.tactic) ? fields.tactic : [fields.tactic]) {
      const phase = attackPhaseName(tactic);
      if (phase !== undefined && !entry.tactics.includes(phase)) entry.tactics.push(phase);
    }
  }
  for (const entry of byId.values()) entry.tactics.sort();
  return { techniques: [...byId.values()], skipped };
}

/** How many ttps items name no valid technique id: the count an import reports. */
export function skippedTtpItems(ttps: readonly unknown[]): number {
  return threatTechniques(ttps).skipped;
}

/** What one threat (by tid) says of a technique, as the store keeps it. */
export interface TechniqueUse {
  tid: number;
  name: string | null;
  tactics: readonly string[];
}

/**
 * One technique's attack-pattern as every threat that cites it describes it. Two threats may
 * disagree: the name is the one given by the threat with the lowest tid that gives one (the id
 * when none does), and the tactics are all of theirs (ATT&CK itself lists several tactics for
 * many techniques), sorted. So the same store gives the same object whatever the order of imports.
 */
export function mergeTechniqueUses(technique: string, uses: readonly TechniqueUse[]): { name: string; tactics: string[] } {
  let named: TechniqueUse | undefined;
  const tactics = new Set<string>();
  for (const use of uses) {
    if (use.name !== null && (named === undefined || use.tid < named.tid)) named = use;
    for (const tactic of use.tactics) tactics.add(tactic);
  }
  return { name: named?.name ?? technique, tactics: [...tactics].sort() };
}
