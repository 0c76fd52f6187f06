// Tells a database that cannot be reached apart from other failures, so both surfaces answer 503, not 500.
import { ServiceUnavailableError } from '../errors.js';
import type { Logger } from '../logger.js';
import { RequestSlot } from '../request-slot.js';

export const STORE_UNAVAILABLE_MESSAGE = 'The database is unavailable; try again shortly.';

/** Socket errors of a connection that could not be made or was lost. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * PostgreSQL SQLSTATEs (Appendix A): class 08 connection exceptions, 57P01-57P03 shutdown or
 * start-up in progress, 53300 too many connections.
 */
const UNAVAILABLE_SQLSTATE = /^(08[0-9A-Z]{3}|57P0[1-3]|53300)$/;

/** SQLite: locked beyond busy_timeout, or the file cannot be opened. */
const SQLITE_CODES = new Set(['SQLITE_BUSY', 'SQLITE_CANTOPEN']);

/** node-postgres and pg-pool say these in messages only, without a code. */
const DRIVER_MESSAGES = [
  /^Connection terminated/, // lost mid-query, or while connecting
  /timeout exceeded when trying to connect/, // pool connectionTimeoutMillis
  /^Client has encountered a connection error and is not queryable/,
  /^Query read timeout/, // pg query_timeout, when set
  /^Cannot use a pool after calling end on the pool/, // the store is closing (shutdown)
  /^The database connection is not open/, // better-sqlite3 after close
];

function matchesOne(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || SQLITE_CODES.has(code) || UNAVAILABLE_SQLSTATE.test(code))) return true;
  return typeof message === 'string' && DRIVER_MESSAGES.some((pattern) => pattern.test(message));
}

/** True when `error`, its `cause` chain or its aggregated errors show an unreachable database. */
export function isStoreUnavailable(error: unknown, depth = 0): boolean {
  if (depth > 5 || typeof error !== 'object' || error === null) return false;
  if (matchesOne(error)) return true;
  const { cause, errors } = error as { cause?: unknown; errors?: unknown };
  if (isStoreUnavailable(cause, depth + 1)) return true;
  return Array.isArray(errors) && errors.some((inner) => isStoreUnavailable(inner, depth + 1));
}

/** A warning per outage is useful; one per failed request during an outage is noise. */
const WARN_EVERY_MS = 10_000;

/** Responses that answer a database outage, for the request metrics (threatgate_store_errors_total). */
const outageAnswers = new RequestSlot<true>('answered for a store outage');

/** True when the error renderer answered this response for an unreachable database. */
export function answeredForStoreOutage(res: object): boolean {
  return outageAnswers.get(res) === true;
}

/**
 * For an error renderer: the ServiceUnavailableError to render when the database is unreachable
 * (logging a short reason now and then, and marking `res` for the metrics), or undefined for any
 * other error.
 */
export function createStoreUnavailableMapper(logger: Logger): (error: unknown, res?: object) => ServiceUnavailableError | undefined {
  let warnedAt = -Infinity;
  return (error, res) => {
    if (!isStoreUnavailable(error)) return undefined;
    if (res !== undefined) outageAnswers.set(res, true);
    const now = Date.now();
    if (now - warnedAt >= WARN_EVERY_MS) {
      warnedAt = now;
      const e = error as { code?: unknown; message?: unknown };
      logger.warn('database unavailable: answering 503', { reason: typeof e.code === 'string' ? e.code : String(e.message).split('\n')[0] });
    }
    return new ServiceUnavailableError(STORE_UNAVAILABLE_MESSAGE, { cause: error });
  };
}
