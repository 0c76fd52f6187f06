// The two ways the aggregates read linked indicators: the whole store in iid order, or a few owners
// through their links. Both feed the same accumulation (aggregates.ts).
import { sql, type Kysely } from 'kysely';
import { JobThread } from '../threads.js';
import { Aggregates, type AggregateChunk, type AggregateJob, type AggregateResults, type IndicatorAggregateRow } from './aggregates.js';
import type { Database } from './schema.js';

/** Indicators read per statement. */
const CHUNK = 5000;

const INDICATOR_COLUMNS = sql`i.iid, i.type, i.risk, i.retired, i.stamp_updated, i.stamp_added, i.attributes, i.properties`;

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

/** A store of this many indicators accumulates its whole-store aggregates on a worker thread. */
const AGGREGATE_THREAD_FROM = 20_000;

/**
 * The aggregates of the given owners (all of the store's), from every linked indicator: the
 * indicators in iid order, a chunk at a time, with the feeds and threats each is linked to (read by
 * the links' iid indexes). Reading the indicators in order, rather than joining them from each
 * owner's links, keeps a million indicators from being fetched at random once per link.
 */
export async function aggregateWholeStore(trx: Kysely<Database>, fids: number[], tids: number[], threadFrom = AGGREGATE_THREAD_FROM): Promise<AggregateResults> {
  const { n } = await trx.selectFrom('indicators').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  const sink = Number(n) >= threadFrom ? threadSink() : inThreadSink();
  try {
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
        select ${INDICATOR_COLUMNS} from indicators i where i.iid > ${after} order by i.iid limit ${CHUNK}`.execute(trx);
      if (rows.length === 0) break;
      const last = Number(rows[rows.length - 1]!.iid);
      await sink.add({ rows, feedsOf: await ownersIn('feed_links', after, last), threatsOf: await ownersIn('threat_links', after, last) });
      if (rows.length < CHUNK) break;
      after = last;
    }
    return await sink.results(fids, tids);
  } finally {
    await sink.close();
  }
}

/**
 * The aggregates of a few owners, each from its own linked indicators: read through its links in
 * iid order (the links' primary key), so an owner costs what it holds, whatever the store's size.
 */
export async function aggregateOwners(trx: Kysely<Database>, fids: readonly number[], tids: readonly number[]): Promise<AggregateResults> {
  const aggregates = new Aggregates();
  const read = async (kind: 'feed' | 'threat', owner: number) => {
    const [links, column] = kind === 'feed' ? ['feed_links', 'fid'] : ['threat_links', 'tid'];
    for (let after = Number.MIN_SAFE_INTEGER; ; ) {
      const { rows } = await sql<IndicatorAggregateRow & { iid: number }>`
        select ${INDICATOR_COLUMNS} from ${sql.table(links)} l join indicators i on i.iid = l.iid
        where ${sql.ref(`l.${column}`)} = ${owner} and l.iid > ${after} order by l.iid limit ${CHUNK}`.execute(trx);
      aggregates.addOwned(kind, owner, rows);
      if (rows.length < CHUNK) break;
      after = Number(rows[rows.length - 1]!.iid);
    }
  };
  for (const fid of fids) await read('feed', fid);
  for (const tid of tids) await read('threat', tid);
  return aggregates.results(fids, tids);
}
