// Migration 0011: each threat's ATT&CK techniques, as the STIX export publishes them (docs/stix-mapping.md).
import { sql, type Kysely, type Migration } from 'kysely';
import type { Dialect } from './dialect.js';

/**
 * `threat_techniques`: one row per technique a threat's ttps cite or once cited (technique-sync.ts).
 * `name` and `tactics` (JSON list of phase names) are what that threat says of it, merged into the
 * technique's attack-pattern with what the other threats say; `attack_pattern` is that object's id,
 * so that a collection view finds the attack-patterns of its threats in SQL. A technique the threat
 * no longer cites keeps its row with `active` 0: its relationship was revoked, which is final, and
 * `round` (one up at each such drop) gives the relationship a new id should the threat cite it again.
 *
 * The table starts empty: the STIX sync fills it for every threat the first time it runs after
 * this migration (technique-sync.ts, TECHNIQUES_KEY), so an upgraded store publishes its threats'
 * techniques then, without an import of its own.
 */
export const threatTechniques = (dialect: Dialect): Migration => ({
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('threat_techniques')
      .addColumn('tid', dialect === 'sqlite' ? 'integer' : 'bigint', (c) => c.notNull())
      .addColumn('technique', 'text', (c) => c.notNull())
      .addColumn('name', 'text')
      .addColumn('tactics', 'text', (c) => c.notNull())
      .addColumn('attack_pattern', 'text', (c) => c.notNull())
      .addColumn('active', 'integer', (c) => c.notNull())
      .addColumn('round', 'integer', (c) => c.notNull().defaultTo(0))
      .addPrimaryKeyConstraint('threat_techniques_pk', ['tid', 'technique'])
      .$call((t) => (dialect === 'sqlite' ? t.modifyEnd(sql`without rowid`) : t))
      .execute();
    await db.schema.createIndex('threat_techniques_technique').on('threat_techniques').columns(['technique', 'tid']).execute();
  },
});
