// Recomputes what is derived from the data after an import: link page ranks and feed/threat aggregates.
import { sql, type Transaction } from 'kysely';
import type { ImportChanges } from './import-writer.js';
import { JobThread } from '../threads.js';
import { Aggregates, type AggregateChunk, type AggregateJob, type AggregateResults, type IndicatorAggregateRow } from './aggregates.js';
import { LINK_KIND, ownersWithChangedLinks } from './import-staging.js';
import type { Database } from './schema.js';

/** Ranks (seq) the links of the given owners by iid, so a links page is a range scan on (owner, seq). */
async function renumberLinks(trx: Transaction<Database>, table: 'feed_links' | 'threat_links'): Promise<void> {
  const owner = table === 'feed_links' ? 'fid' : 'tid';
  const ids = await ownersWithChangedLinks(trx, table === 'feed_links' ? LINK_KIND.feed : LINK_KIND.threat);
  for (let i = 0; i < ids.length; i += 500) {
    const slice = ids.slice(i, i + 500);
    await sql`
      update ${sql.table(table)} set seq = r.rn
      from (select ${sql.ref(owner)} as o, iid, row_number() over (partition by ${sql.ref(owner)} order by iid) - 1 as rn
            from ${sql.table(table)} where ${sql.ref(owner)} in (${sql.join(slice)})) as r
      where ${sql.ref(`${table}.${owner}`)} = r.o and ${sql.ref(`${table}.iid`)} = r.iid and ${sql.ref(`${table}.seq`)} <> r.rn`.execute(trx);
  }
}

export function anyChange(changes: ImportChanges): boolean {
  return changes.threats + changes.feeds + changes.indicators + changes.feedLinks + changes.threatLinks > 0;
}

/** Where the aggregates are accumulated: on a worker thread, or in the import's own. */
interface AggregateSink {
  add(chunk: AggregateChunk): Promise<void>;
  results(fids: number[], tids: number[]): Promise<AggregateResults>;
  close(): Promise<void>;
}

function inThreadSink(): AggregateSink {
  const aggregates = new Aggregates();
  return {
    add: async (chunk) => aggregates.add(chunk),
    results: async (fids, tids) => aggregates.results(fids, tids),
    close: async () => undefined,
  };
}

/**
 * The worker adds one chunk while the next is read. Its live data is the per-owner counts, which
 * the top-value limits keep small; the bound keeps its garbage from growing the process.
 */
function threadSink(): AggregateSink {
  const thread = new JobThread<AggregateJob, AggregateResults | null>(import.meta.url, 'aggregate-worker', 'computing aggregates', {
    maxOldGenerationSizeMb: 128,
  });
  let adding: Promise<unknown> = Promise.resolve();
  return {
    async add(chunk) {
      await adding;
      adding = thread.run({ add: chunk });
      adding.catch(() => undefined);
    },
    async results(fids, tids) {
      await adding;
      return (await thread.run({ results: { fids, tids } }))!;
    },
    close: () => thread.close(),
  };
}

/**
 * Feeds every linked indicator to the sink: the indicators in iid order, a chunk at a time, with the
 * feeds and threats each is linked to (read by the links' iid indexes). Reading the indicators in
 * order, rather than joining them from each owner's links, keeps a million indicators from being
 * fetched at random once per link.
 */
async function aggregateByIndicator(trx: Transaction<Database>, sink: AggregateSink): Promise<void> {
  const CHUNK = 5000;
  const ownersIn = async (table: 'feed_links' | 'threat_links', after: number, last: number) => {
    const owner = table === 'feed_links' ? 'fid' : 'tid';
    const { rows } = await sql<{ owner: number; iid: number }>`
      select ${sql.ref(owner)} as owner, iid from ${sql.table(table)} where iid > ${after} and iid <= ${last}`.execute(trx);
    const byIid = new Map<number, number[]>();
    for (const row of rows) {
      const iid = Number(row.iid);
      const owners = byIid.get(iid);
      if (owners) owners.push(Number(row.owner));
      else byIid.set(iid, [Number(row.owner)]);
    }
    return byIid;
  };
  for (let after = Number.MIN_SAFE_INTEGER; ; ) {
    const { rows } = await sql<IndicatorAggregateRow & { iid: number }>`
      select iid, type, risk, retired, stamp_updated, stamp_added, attributes, properties
      from indicators where iid > ${after} order by iid limit ${CHUNK}`.execute(trx);
    if (rows.length === 0) break;
    const last = Number(rows[rows.length - 1]!.iid);
    await sink.add({ rows, feedsOf: await ownersIn('feed_links', after, last), threatsOf: await ownersIn('threat_links', after, last) });
    if (rows.length < CHUNK) break;
    after = last;
  }
}

/** A store of this many indicators accumulates its aggregates on a worker thread. */
const AGGREGATE_THREAD_FROM = 20_000;

/**
 * Aggregates depend on indicators, links, feeds and threats at once, so any change recomputes all of
 * them; an import that changes nothing (a re-import) skips the work entirely.
 */
async function refreshAggregates(trx: Transaction<Database>, threadFrom: number): Promise<void> {
  const feeds = await trx.selectFrom('feeds').select(['fid', 'name', 'organization', 'pricing', 'category']).execute();
  const threats = await trx.selectFrom('threats').select(['tid', 'name', 'category', 'risk', 'stamp_updated']).execute();
  const { n } = await trx.selectFrom('indicators').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  const sink = Number(n) >= threadFrom ? threadSink() : inThreadSink();
  let results: AggregateResults;
  try {
    await aggregateByIndicator(trx, sink);
    results = await sink.results(
      feeds.map((f) => Number(f.fid)),
      threats.map((t) => Number(t.tid)),
    );
  } finally {
    await sink.close();
  }
  const feedById = new Map(feeds.map((f) => [Number(f.fid), f]));
  const threatById = new Map(threats.map((t) => [Number(t.tid), t]));

  // Indicators shared by a feed and a threat, counted once per pair.
  const { rows: pairs } = await sql<{ fid: number; tid: number; n: number }>`
    select fl.fid, tl.tid, count(*) as n from feed_links fl join threat_links tl on tl.iid = fl.iid group by fl.fid, tl.tid`.execute(trx);
  const byDesc = (a: { indicators: number; id: number }, b: { indicators: number; id: number }) => b.indicators - a.indicators || a.id - b.id;

  for (const feed of feeds) {
    const fid = Number(feed.fid);
    const agg = results.feeds.get(fid)!;
    const related = pairs
      .filter((p) => Number(p.fid) === fid && threatById.has(Number(p.tid)))
      .map((p) => ({ id: Number(p.tid), indicators: Number(p.n) }))
      .sort(byDesc)
      .map(({ id, indicators }) => {
        const t = threatById.get(id)!;
        return { indicators, tid: id, category: t.category, stamp_updated: t.stamp_updated, risk: t.risk, name: t.name };
      });
    const summary = { properties: agg.properties, attributes: agg.attributes, threats: related, risk: agg.risk };
    await trx
      .updateTable('feeds')
      .set({ indicators: JSON.stringify(agg.risk), summary: JSON.stringify(summary) })
      .where('fid', '=', fid)
      .execute();
  }

  for (const threat of threats) {
    const tid = Number(threat.tid);
    const agg = results.threats.get(tid)!;
    const related = pairs
      .filter((p) => Number(p.tid) === tid && feedById.has(Number(p.fid)))
      .map((p) => ({ id: Number(p.fid), indicators: Number(p.n) }))
      .sort(byDesc)
      .map(({ id, indicators }) => {
        const f = feedById.get(id)!;
        return { fid: id, organization: f.organization, name: f.name, pricing: f.pricing, category: f.category, indicators };
      });
    const summary = {
      updated_last_domain: agg.lastDomainUpdate,
      attributes: agg.attributes,
      properties: agg.properties,
      feeds: related,
      risk: agg.risk,
    };
    await trx
      .updateTable('threats')
      .set({ summary: JSON.stringify(summary), updated_last_domain: agg.lastDomainUpdate })
      .where('tid', '=', tid)
      .execute();
  }
}

/** The part of the import refresh that the lookup API relies on. */
export async function refreshLookupData(trx: Transaction<Database>, changes: ImportChanges, options: { aggregateThreadFrom?: number } = {}): Promise<void> {
  // Links moved into a fresh store were ranked as they went in (moveLinks).
  if (!changes.fresh) {
    await renumberLinks(trx, 'feed_links');
    await renumberLinks(trx, 'threat_links');
  }
  if (anyChange(changes)) await refreshAggregates(trx, options.aggregateThreadFrom ?? AGGREGATE_THREAD_FROM);
}
