// Where an explore query runs and how it is stopped at its deadline (docs/explore.md, "How queries
// stay bounded"): PostgreSQL under a statement timeout; an SQLite file on a worker thread with its
// own connection (explore-worker.ts), so the serving thread keeps answering meanwhile.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { JobThread } from '../../threads.js';
import type { ExploreQuery, ExploreResult } from '../contract/explore.js';
import { sqliteFileOf, type Dialect } from '../db/dialect.js';
import type { Database } from '../db/schema.js';
import { exploreWith } from './explore-queries.js';

/** What the worker's deadline function throws (explore-worker.ts). */
export const DEADLINE_PASSED = 'explore query past its deadline';

/** A query for the worker, with the SQLite file it opens (read-only) on its first job. */
export interface ExploreJob {
  file: string;
  query: ExploreQuery;
  /** When the query was asked plus its `maxMillis` (ms since the epoch): its wait for the thread counts. */
  deadlineAt: number;
}

export interface Explorer {
  explore(query: ExploreQuery): Promise<ExploreResult>;
  /** Stops the worker thread, if one was started. */
  close(): Promise<void>;
}

/** PostgreSQL's SQLSTATE for a statement cancelled by statement_timeout. */
const QUERY_CANCELED = '57014';

const NO_GUARD = sql`1 = 1`;

function kyselyRunner(db: Kysely<Database>) {
  return async <R>(query: RawBuilder<R>): Promise<R[]> => (await query.execute(db)).rows;
}

function postgresExplorer(db: Kysely<Database>): Explorer {
  return {
    async explore(query) {
      try {
        return await db.transaction().execute(async (trx) => {
          await sql.raw(`set local statement_timeout = ${Math.max(1, Math.trunc(query.maxMillis))}`).execute(trx);
          return exploreWith(kyselyRunner(trx), { dialect: 'postgres', guard: NO_GUARD }, query);
        });
      } catch (error) {
        if ((error as { code?: string }).code === QUERY_CANCELED) return { timedOut: true };
        throw error;
      }
    },
    close: async () => undefined,
  };
}

/**
 * SQLite: the worker thread starts with the first query and answers one query at a time, so a query
 * waiting behind another spends part of its time waiting: its deadline counts from when it was asked,
 * and one whose deadline passed while it waited is not run (under more queries than the thread
 * answers, each still ends within its time instead of behind a queue that only grows). A `:memory:`
 * database cannot be opened by a second connection: its queries run on the store's own, without a
 * deadline (tests and the demo).
 */
function sqliteExplorer(db: Kysely<Database>): Explorer {
  let file: Promise<string> | undefined;
  let thread: JobThread<ExploreJob, ExploreResult> | undefined;
  return {
    async explore(query) {
      file ??= sqliteFileOf(db);
      const path = await file;
      if (path === '') return exploreWith(kyselyRunner(db), { dialect: 'sqlite', guard: NO_GUARD }, query);
      thread ??= new JobThread<ExploreJob, ExploreResult>(import.meta.url, 'explore-worker', 'answering an explore query', { maxOldGenerationSizeMb: 128 });
      return thread.run({ file: path, query, deadlineAt: Date.now() + query.maxMillis });
    },
    async close() {
      await thread?.close();
      thread = undefined;
    },
  };
}

/** The explorer of a store over `db`. */
export function createExplorer(db: Kysely<Database>, dialect: Dialect): Explorer {
  return dialect === 'postgres' ? postgresExplorer(db) : sqliteExplorer(db);
}
