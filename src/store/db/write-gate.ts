// SQLite: a write a serving process makes (a console sign-in, "Pull now", a sighting) waits for
// another process's write (a pull's, which can hold the store for minutes) without stopping the
// process. better-sqlite3 waits for a lock inside the statement, synchronously: for as long as it
// waits, the process answers nothing else. So before such a write the store asks a connection of its
// own, with no busy timeout, whether the write lock is free; while another connection holds it, the
// store waits a moment between asks, and the process answers other requests meanwhile. A write still
// waiting after the store's busy timeout fails as a write past it always did ("database is locked",
// SQLITE_BUSY: a 503 to a request), without having held the process. PostgreSQL waits for its locks
// on the server, never in the process: there is nothing to do there.
import BetterSqlite3 from 'better-sqlite3';
import type { Kysely } from 'kysely';
import { sqliteFileOf, type Dialect } from './dialect.js';
import type { Database } from './schema.js';

/** Between two asks whether the write lock is free. */
const ASK_EVERY_MS = 20;

export interface WriteGate {
  /** Resolves once no other connection holds the write lock; rejects with SQLITE_BUSY after the gate's patience. */
  pass(): Promise<void>;
  close(): void;
}

const OPEN_GATE: WriteGate = { pass: async () => undefined, close: () => undefined };

/** The gate of a store over `db`: a probe connection to its SQLite file, opened at the first write; none for PostgreSQL or `:memory:`. */
export function writeGateOf(db: Kysely<Database>, dialect: Dialect, patienceMs: number): WriteGate {
  if (dialect !== 'sqlite') return OPEN_GATE;
  let probe: Promise<BetterSqlite3.Database | undefined> | undefined;
  let opened: BetterSqlite3.Database | undefined;
  const probeOf = () =>
    (probe ??= sqliteFileOf(db).then((file) => {
      if (file === '') return undefined;
      opened = new BetterSqlite3(file, { fileMustExist: true });
      opened.pragma('busy_timeout = 0');
      return opened;
    }));
  return {
    async pass() {
      const connection = await probeOf();
      if (connection === undefined) return;
      const until = Date.now() + patienceMs;
      for (;;) {
        try {
          // Taken and given back at once: the lock is free now, and the write that follows takes it.
          connection.exec('begin immediate');
          connection.exec('rollback');
          return;
        } catch (error) {
          // Anything but a held lock (a closed store, say) is left to the write itself to meet.
          if ((error as { code?: unknown }).code !== 'SQLITE_BUSY') return;
          if (Date.now() >= until) throw Object.assign(new Error(`database is locked: another write held it for ${patienceMs} ms`), { code: 'SQLITE_BUSY' });
        }
        await new Promise((resolve) => setTimeout(resolve, ASK_EVERY_MS));
      }
    },
    close() {
      opened?.close();
      opened = undefined;
    },
  };
}
