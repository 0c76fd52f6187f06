// A threat a write creates from a name alone (a pull naming a threat no record has): its row in the
// columns a file's threats fill (record-upserts.ts), so the two cannot drift apart.
import type { Insertable } from 'kysely';
import type { THREAT_COLUMNS, THREAT_COMPUTED } from './record-upserts.js';
import type { ThreatTable } from '../db/schema.js';

/** Every column a file's threat fills, typed as the table takes it. */
export type ThreatRow = Required<Pick<Insertable<ThreatTable>, (typeof THREAT_COLUMNS)[number] | keyof typeof THREAT_COMPUTED>>;

/** What a pull knows of a threat it creates: its name, category, other names and risk (the source's). */
export interface NewThreat {
  name: string;
  category: string;
  othernames: readonly string[];
  risk: string;
}

/**
 * A new threat's row: what the pull knows of it, seen at `at`, nothing else known. Active (`retired`
 * 0): a source that names a threat has just observed it (spec section 3).
 */
export function newThreatRow(tid: number, threat: NewThreat, at: string): ThreatRow {
  return {
    tid, name: threat.name, category: threat.category, risk: threat.risk, description: null, notes: null, wikisummary: null, wikireference: null,
    retired: 0, stamp_added: at, stamp_updated: at, stamp_seen: at, stamp_retired: null, othernames: JSON.stringify(threat.othernames),
    attributes: '{}', ttps: '[]', news: '[]', comments: '[]', related: '[]',
    // No content hash: the next file import that brings the threat's record writes all of it.
    content_hash: '',
    // Computed by derive when the write's links are in.
    summary: '{}', updated_last_domain: null,
  };
}
