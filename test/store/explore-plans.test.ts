// The plan of each explore query shape (docs/explore.md, "How queries stay bounded"): on a store with
// many more rows than any query selects, and statistics gathered, every field's query reads an index,
// never the whole indicators table. SQLite: EXPLAIN QUERY PLAN; PostgreSQL: EXPLAIN.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql, type RawBuilder } from 'kysely';
import { importDataset } from '../../src/import/import-file.js';
import { exploreFilter } from '../../src/explore/explore-filters.js';
import { indicatorPageSql, threatPageSql, type ExploreSql } from '../../src/store/queries/explore-queries.js';
import type { Store } from '../../src/store/contract/store.js';
import { fixedClock } from '../helpers/test-app.js';
import { storeBackends } from '../helpers/store-backends.js';
import { dbOf, dialectOf } from '../helpers/store-db.js';
import { addFiller, exploreData, EXPLORE_NOW as NOW } from '../helpers/explore-data.js';
import { planReader } from '../helpers/query-plans.js';

/** One query of each indicator field's shape. */
const INDICATOR_QUERIES = [
  'ioc=login.evil.example',
  'ioc=198.51.100.7',
  'ioc=198.51.100.0/24',
  'ioc=2001:db8::/32',
  'ioc=*.evil.example',
  'ioc=100%_off*',
  'evil',
  'type=url',
  'type=cidr',
  'risk=critical',
  'risk=retired',
  'threat="Cobalt Strike"',
  'threat=cobalt*',
  'feed=urlhaus',
  'attribute.port=443',
  'attribute=nginx',
  'added>2025-12-01',
  'updated>2026-01-01',
  'retired>2026-01-01',
  'type=domain and feed=urlhaus',
  'risk>=high and added>30d',
  'threat=emotet or attribute.port=443',
  'seen>7d and feed=urlhaus',
  'sightings>0',
  'sightings>=3 and type=domain',
  'submissions>=2',
  'sighted>7d',
];

const THREAT_QUERIES = ['ttp=T1059', 'ttp=T1059.001', 'threat=beacon', 'feed=urlhaus'];

for (const backend of storeBackends()) {
  describe(`explore query plans on ${backend.name}`, () => {
    let store: Store;
    let x: ExploreSql;
    /** The plan's lines. */
    let plan: (query: RawBuilder<unknown>) => Promise<string[]>;
    before(async () => {
      ({ store } = await backend.create());
      await importDataset(store, exploreData(), fixedClock);
      // PostgreSQL prices a GIN index above a sequential scan of a small table: at 20,000 rows it reads
      // the table for a wildcard, from about 100,000 the index, as on a store of real size.
      await addFiller(store, 100_000);
      const db = dbOf(store);
      await sql`analyze`.execute(db);
      x = { dialect: dialectOf(store), guard: sql`1 = 1` };
      plan = planReader(store);
    });
    after(async () => {
      await store.close();
      await backend.cleanup();
    });

    /**
     * A line that reads every row of indicators: SQLite's SCAN of the table or of an index on all its
     * rows, PostgreSQL's Seq Scan. The partial indexes (retired = 1; the observed indicators'
     * counters) hold those rows alone.
     */
    const PARTIAL = /INDEX (indicators_retired_flag|indicators_sightings|indicators_submissions|indicators_sighted)\b/;
    const wholeTable = (line: string) =>
      (/^SCAN (i|indicators)\b/.test(line.trim()) && !PARTIAL.test(line)) || /Seq Scan on indicators\b/.test(line);

    for (const q of INDICATOR_QUERIES) {
      it(`reads indexes for "${q}"`, async () => {
        const lines = await plan(indicatorPageSql(x, exploreFilter('indicators', q, NOW), 0, 100));
        assert.equal(lines.filter(wholeTable).length, 0, lines.join('\n'));
      });
    }
    for (const q of THREAT_QUERIES) {
      it(`reads indexes for threats "${q}"`, async () => {
        const lines = await plan(threatPageSql(x, exploreFilter('threats', q, NOW), 0, 100));
        assert.equal(lines.filter(wholeTable).length, 0, lines.join('\n'));
      });
    }
  });
}
