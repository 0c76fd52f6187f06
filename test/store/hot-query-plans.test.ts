// The plans of the statements the service runs on every lookup, TAXII poll, export page, pull and
// lifecycle run (docs/deployment.md, "Query plans"): on a store with far more rows than any of them
// selects, statistics gathered, no statement reads a large table whole. Each store method runs for
// real on a store whose every statement is explained first, on its own connection
// (test/helpers/query-plans.ts). A plan that does read one is a finding: a todo test of its own.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { CollectionConfig } from '../../src/config.js';
import { storedTypesOf } from '../../src/sources/indicator-value.js';
import { storedBlocksHolding } from '../../src/sources/stored-blocks.js';
import type { ObjectListing } from '../../src/store/contract/records.js';
import type { Store, WriteOptions } from '../../src/store/contract/store.js';
import { noBatches, type WriteBatch } from '../../src/store/contract/write-batch.js';
import { DEFAULT_COLLECTIONS, storeBackends } from '../helpers/store-backends.js';
import { dbOf, dialectOf } from '../helpers/store-db.js';
import { FEED_VIEW, fillerValue, fillPlanStore, LATER, PLAN_COLLECTIONS, pullOfFeed3 } from '../helpers/hot-query-data.js';
import { describeWholeReads, openExplainingStore, type ExplainingStore, type StatementPlan } from '../helpers/query-plans.js';

/** The tables that grow with the store (src/store/db/schema.ts): no hot statement reads one whole. */
const LARGE_TABLES = ['indicators', 'unlisted_indicators', 'feed_links', 'threat_links', 'source_listings', 'past_listings', 'threat_link_sources', 'stix_objects', 'collection_objects'];

const [TEST, UNFILTERED] = DEFAULT_COLLECTIONS as [CollectionConfig, CollectionConfig];
const COLLECTIONS = [['the unfiltered collection', UNFILTERED], ['the test collection', TEST], ["a feed's view", FEED_VIEW]] as const;

/** A filler indicator in the middle of every table, in feed 2's view and among threat 2's links. */
const MIDDLE = 50_000;
const MIDDLE_IID = 1000 + MIDDLE;

/** A page of a listing: the defaults of GET .../objects/ but for what `q` sets. */
const listing = (collection: CollectionConfig, q: Partial<ObjectListing> = {}): ObjectListing => ({
  collection, after: null, addedAfter: null, ids: null, types: null, modified: null, limit: 100, withBody: true, ...q,
});

/** The `max` selection of an export (export-queries.ts, chosenPages) sorts what the collection lists: no index serves its order. */
const MAX_FINDINGS: Record<string, Partial<Record<string, string>>> = {
  [UNFILTERED.id]: {
    SQLite: 'reads every active indicator to sort them: no index serves the order of `max` (export-queries.ts, chosenPages)',
    PostgreSQL: 'reads every active indicator, and every listing for their stamps, to sort them: no index serves the order of `max` (export-queries.ts, chosenPages, seenForOrder)',
  },
  [FEED_VIEW.id]: { PostgreSQL: 'PostgreSQL sorts the view\'s indicators after a hash join that reads indicators whole; so too at 1,000,000 indicators' },
};

/** A statement of a write whose plan reads a large table whole: a todo test of its own until src/store changes it. */
interface Finding {
  write: string;
  stage: string;
  /** Matched against the statement's SQL, its white space collapsed; `parameter` must be one of its parameters. */
  statement: RegExp;
  parameter?: unknown;
  title: string;
  on: string[];
  why: string;
}

const PULL = "a feed's pull";
const FINDINGS: Finding[] = [
  { write: PULL, stage: 'derive', statement: /^select count\(\*\) as n from "?threat_links"? where iid in/, title: "the changed indicators' threat links counted for the aggregates' choice of pass (derive.ts, wholePassPays)", on: ['PostgreSQL'],
    why: 'PostgreSQL hashes threat_links (25,000 rows here) against the 220 changed iids rather than probe its iid index 220 times, the cheaper plan at this size' },
  { write: PULL, stage: 'derive', statement: /^select (owner as )?id from \(select .*union select "(fid|tid)" as id from "(feed_links|threat_links)" where iid in/, title: 'the owners a write touched (touched-owners.ts)', on: ['PostgreSQL'],
    why: "PostgreSQL hashes threat_links (25,000 rows here) against the 220 changed iids rather than probe its iid index, and finds the feeds that share indicators with the changed threat by hashing feed_links whole rather than probe it for each of the threat's thousands of links: each the cheaper plan by its estimates at this size" },
  { write: PULL, stage: 'derive', statement: /^with l as materialized \(select "tid" as owner, iid from "threat_links" where iid in/, title: "the touched threats' linked indicators (value-counts.ts)", on: ['PostgreSQL'],
    why: "PostgreSQL scans threat_links (25,000 rows here) for a chunk's 200 iids rather than probe its iid index 200 times; on a store of 645,000 threat links it probes the index" },
  { write: PULL, stage: 'project', statement: /^insert into render_links \(tid, iid\) select tl\.tid, tl\.iid from threat_links tl where tl\.tid in/, title: 'the links of changed threats to render (stix-sync.ts)', on: ['PostgreSQL'],
    why: 'threat_links holds the links of two threats here, so PostgreSQL expects the changed one to hold half of it and reads it whole rather than by its tid index' },
  { write: PULL, stage: 'project', statement: /^(delete from collection_objects where collection|insert into collection_objects \(collection, id, type, modified, date_added\) select|select o\.id, o\.type, o\.modified from)/,
    parameter: FEED_VIEW.id, title: "a filtered view's membership brought up to date (collection-views.ts, refreshView)", on: ['PostgreSQL'],
    why: "PostgreSQL reads indicators, threat_links, stix_objects and the view's membership whole to refresh a view of a tenth of the store; so too at 1,000,000 indicators" },
];

for (const backend of storeBackends()) {
  describe(`hot query plans on ${backend.name}`, () => {
    let store: Store;
    let explaining: ExplainingStore;
    /** Where a page after the middle filler indicator starts, and the test collection's second half. */
    let middle: { dateAdded: number; id: string };
    let sampled: { dateAdded: number; id: string };
    let location: string;

    before(async () => {
      // Filling is a bulk load, given the time a command's write has (store-backends.ts).
      ({ store, location } = await backend.create({ collections: PLAN_COLLECTIONS, busyTimeoutMs: 600_000 }));
      await fillPlanStore(store);
      const position = async (query: ReturnType<typeof sql<{ date_added: number | string; id: string }>>) => {
        const row = (await query.execute(dbOf(store))).rows[0]!;
        return { dateAdded: Number(row.date_added), id: row.id };
      };
      middle = await position(sql`select date_added, id from stix_objects where iid = ${MIDDLE_IID} and type = 'indicator'`);
      sampled = await position(sql`select date_added, id from collection_objects where collection = ${TEST.id} order by date_added, id limit 1 offset 50`);
      explaining = await openExplainingStore(location, dialectOf(store), PLAN_COLLECTIONS, LARGE_TABLES);
    });
    after(async () => {
      await explaining?.close();
      await store?.close();
      await backend.cleanup();
    });

    /** Runs `run` on the explaining store: no statement it ran reads a large table whole. */
    const holds = async (run: (store: Store) => Promise<unknown>) => {
      explaining.take();
      await run(explaining.store);
      const statements = explaining.take();
      assert.ok(statements.length > 0, 'the method ran no statement');
      assert.equal(describeWholeReads(statements), '');
    };

    describe('the indicator lookup', () => {
      const value = fillerValue(MIDDLE + 1);
      it('an indicator by value and types', () => holds((s) => s.findIndicatorByValue(value, storedTypesOf('domain'))));
      it('an indicator by value, or by the value as given', () => holds((s) => s.findIndicatorByValue(value, storedTypesOf('domain'), value.toUpperCase())));
      it('an indicator by iid', () => holds((s) => s.findIndicator(MIDDLE_IID)));
      it('the blocks holding an address', () => holds((s) => storedBlocksHolding(s, '198.51.100.7', 'ip')));
      it("an indicator's properties", () => holds((s) => s.findIndicatorProperties(MIDDLE_IID)));
    });

    describe('threats and feeds', () => {
      it('a threat by tid', () => holds((s) => s.findThreat(2)));
      it('a threat by name', () => holds((s) => s.findThreatByName('emotet')));
      it('a feed by fid', () => holds((s) => s.findFeed(1)));
      it('a feed by name and organization', () => holds((s) => s.findFeedByName('urlhaus', 'example labs, inc.')));
      it("a feed's first page of links", () => holds((s) => s.findLinksPage({ kind: 'feed', fid: 1 }, 0, 100)));
      it("a feed's deep page of links", () => holds((s) => s.findLinksPage({ kind: 'feed', fid: 1 }, 900, 100)));
      it("a threat's first page of links", () => holds((s) => s.findLinksPage({ kind: 'threat', tid: 2 }, 0, 100)));
      it("a threat's deep page of links", () => holds((s) => s.findLinksPage({ kind: 'threat', tid: 2 }, 200, 100)));
    });

    for (const [name, collection] of COLLECTIONS) {
      describe(`TAXII, ${name}`, () => {
        const at = () => (collection === TEST ? sampled : middle);
        const page = (q: Partial<ObjectListing>) => holds((s) => s.listCollectionObjects(listing(collection, q)));
        it('the first page of objects', () => page({}));
        it('a page of objects after a cursor', () => page({ after: at() }));
        it('a page of the manifest after a cursor', () => page({ after: at(), withBody: false }));
        it('objects with added_after', () => page({ addedAfter: at().dateAdded }));
        it('objects with match[type]', () => page({ types: ['relationship'] }));
        it('objects with match[type] after a cursor', () => page({ after: at(), types: ['indicator'] }));
        it('objects with match[id]', () => page({ ids: [at().id] }));
        it('an object', () => page({ objectId: at().id }));
        it("an object's versions", () => page({ objectId: at().id, withBody: false }));
        it('whether the collection holds an object', () => holds((s) => s.collectionHasObject(collection, at().id)));
      });
    }

    for (const [name, collection] of COLLECTIONS) {
      describe(`the export of ${name}`, () => {
        const pages = (s: Store, max?: number) => s.exportIndicators({ filter: collection.filter, withThreats: true, withSeen: true, pageSize: 40, max })[Symbol.asyncIterator]();
        /** Reads `skip` pages, then holds the plans of the next one. */
        const pageHolds = async (skip: number, max?: number) => {
          const walk = pages(explaining.store, max);
          for (let i = 0; i < skip; i++) await walk.next();
          await holds(() => walk.next());
          await walk.return?.(undefined);
        };
        it('the first page', () => pageHolds(0));
        it('a later page', () => pageHolds(2));
        it('the rows `max` keeps', { todo: MAX_FINDINGS[collection.id]?.[backend.name] }, () => pageHolds(0, 2000));
      });
    }

    const WRITES: [string, (s: Store, options: WriteOptions) => Promise<unknown>][] = [
      [PULL, (s, options) => {
        const { plan, batches } = pullOfFeed3();
        return s.applyWrite({ kind: 'pull', plan }, batches, LATER, options);
      }],
      ["a feed's pull answered Not Modified", (s, options) => {
        const { plan, batches } = pullOfFeed3(true);
        return s.applyWrite({ kind: 'pull', plan }, batches, LATER, options);
      }],
      ['a sighting of an indicator', (s, options) => {
        const plan = { target: { iid: MIDDLE_IID }, by: { keyId: null, label: null }, reportedAt: '2026-02-01 00:00:00', seenAt: '2026-02-01 00:00:00', count: 1, note: null };
        return s.applyWrite({ kind: 'sighting', plan }, noBatches(), LATER, options);
      }],
      ["the lifecycle's run", (s, options) => {
        const plan = { at: '2026-02-01 00:00:00', threatCutoff: '2025-01-01 00:00:00', indicatorCutoffs: { byType: {}, default: '2025-12-01 00:00:00' } };
        return s.applyWrite({ kind: 'lifecycle', plan }, noBatches(), LATER, options);
      }],
    ];
    for (const [name, write] of WRITES) {
      describe(name, () => {
        /** The write's statements by the stage they ran in (apply.ts). */
        const stages = new Map<string, StatementPlan[]>();
        before(async () => {
          let stage = 'ingest';
          explaining.take();
          await write(explaining.store, { onPhase: (next) => void (stages.set(stage, explaining.take()), (stage = next)) });
          stages.set(stage, explaining.take());
        });
        const matches = (finding: Finding) => (st: StatementPlan) =>
          finding.statement.test(st.sql.replace(/\s+/g, ' ').trim()) && (finding.parameter === undefined || st.parameters.includes(finding.parameter));
        for (const stage of ['ingest', 'derive', 'project', 'commit']) {
          const known = FINDINGS.filter((f) => f.write === name && f.stage === stage && f.on.includes(backend.name));
          it(`${stage}: reads no large table whole`, () => {
            assert.equal(describeWholeReads((stages.get(stage) ?? []).filter((st) => !known.some((f) => matches(f)(st)))), '');
          });
          for (const finding of known) {
            it(`${stage}: ${finding.title}`, { todo: finding.why }, () => {
              const statements = (stages.get(stage) ?? []).filter(matches(finding));
              assert.ok(statements.length > 0, 'the write no longer runs this statement');
              assert.equal(describeWholeReads(statements), '');
            });
          }
        }
      });
    }

    // A store of millions gets merge joins where this one gets nested loops: a paged read that bounds
    // only its staged side would then read indicators from their first row for every page.
    if (backend.name === 'PostgreSQL') {
      it("a feed's pull, merge joins forced: its pages of indicators start at the page", async () => {
        const merging = await openExplainingStore(location, dialectOf(store), PLAN_COLLECTIONS, ['indicators'], { enable_nestloop: 'off', enable_hashjoin: 'off' });
        try {
          const { plan, batches } = pullOfFeed3();
          // Attributes the indicators do not hold yet (the pull before gave these values others), so they are read and merged.
          async function* newAttributes(): AsyncGenerator<WriteBatch> {
            for await (const batch of batches) {
              yield batch.kind === 'values' ? { ...batch, attributes: batch.attributes.map(([type, value, seq]) => [type, value, seq, JSON.stringify({ port: ['8443'] })] as const) } : batch;
            }
          }
          await merging.store.applyWrite({ kind: 'pull', plan }, newAttributes(), LATER, {});
          const paged = merging.take().filter((st) => /\blimit\b/i.test(st.sql) && /join indicators i on i\.iid = (p|s|l)\.iid/.test(st.sql));
          assert.ok(paged.some((st) => /pull_attribute_iids p left join indicators/.test(st.sql)), "the pull's page of attributes ran");
          assert.equal(describeWholeReads(paged), '');
        } finally {
          await merging.close();
        }
      });
    }
  });
}
