// A threat a write creates from a name alone (a pull naming a threat no record has): its row in the
// columns a file's threats fill (contract/write-batch.ts), so the two cannot drift apart.
import type { Insertable } from 'kysely';
import type { THREAT_COLUMNS } from '../contract/write-batch.js';
import type { ThreatTable } from '../db/schema.js';

/** Every column a file's threat fills, typed as the table takes it. */
export type ThreatRow = Required<Pick<Insertable<ThreatTable>, (typeof THREAT_COLUMNS)[number]>>;

/** A new threat's row: the name, category and other names given, risk unknown, seen at `at`, nothing else known. */
export function newThreatRow(tid: number, name: string, category: string, othernames: readonly string[], at: string): ThreatRow {
  return {
    tid, name, category, risk: 'unknown', description: null, notes: null, wikisummary: null, wikireference: null, retired: null,
    stamp_added: at, stamp_updated: at, stamp_seen: at, stamp_retired: null, othernames: JSON.stringify(othernames),
    attributes: '{}', ttps: '[]', news: '[]', comments: '[]', related: '[]',
    // No content hash: the next file import that brings the threat's record writes all of it.
    content_hash: '',
    // Computed by derive when the write's links are in.
    summary: '{}', updated_last_domain: null,
  };
}
