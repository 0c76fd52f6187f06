// Entry of the explore worker thread (explore-runner.ts): answers explore queries on an SQLite store
// with a read-only connection of its own, so that a long query never holds the serving thread, and
// stops each query once past its deadline.
import { parentPort } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, sql, SqliteDialect, type RawBuilder } from 'kysely';
import type { ExploreResult } from '../contract/explore.js';
import { DEADLINE_PASSED, type ExploreJob } from './explore-runner.js';
import { exploreWith } from './explore-queries.js';

let connection: BetterSqlite3.Database | undefined;
let compiler: Kysely<unknown> | undefined;
let deadline = Number.POSITIVE_INFINITY;

/**
 * better-sqlite3 cannot interrupt a statement, so every scan of an explore query calls this function
 * for each row it reads (ExploreSql.guard): past the deadline it throws, which stops the statement.
 */
function open(file: string): { connection: BetterSqlite3.Database; compiler: Kysely<unknown> } {
  if (connection === undefined || compiler === undefined) {
    connection = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
    connection.function('explore_deadline', { deterministic: false }, () => {
      if (Date.now() > deadline) throw new Error(DEADLINE_PASSED);
      return 1;
    });
    // Kysely only compiles here (RawBuilder.compile); the statements run on the connection above.
    const database = connection;
    compiler = new Kysely<unknown>({ dialect: new SqliteDialect({ database }) });
  }
  return { connection, compiler };
}

async function answer(job: ExploreJob): Promise<ExploreResult> {
  // Its time ran out while it waited behind other queries.
  if (Date.now() > job.deadlineAt) return { timedOut: true };
  const { connection: db, compiler: kysely } = open(job.file);
  deadline = job.deadlineAt;
  const run = async <R>(query: RawBuilder<R>): Promise<R[]> => {
    const compiled = query.compile(kysely);
    return db.prepare(compiled.sql).all(...compiled.parameters) as R[];
  };
  try {
    return await exploreWith(run, { dialect: 'sqlite', guard: sql`explore_deadline()` }, job.query);
  } catch (error) {
    if (error instanceof Error && error.message.includes(DEADLINE_PASSED)) return { timedOut: true };
    throw error;
  } finally {
    deadline = Number.POSITIVE_INFINITY;
  }
}

const port = parentPort;
if (port === null) throw new Error('this module runs as a worker thread');
// One query at a time, answered in the order asked (JobThread's protocol, threads.ts).
let queue: Promise<void> = Promise.resolve();
port.on('message', (job: ExploreJob) => {
  queue = queue.then(async () => {
    try {
      port.postMessage({ ok: true, value: await answer(job) });
    } catch (error) {
      port.postMessage({ ok: false, message: error instanceof Error ? error.message : String(error) });
    }
  });
});
