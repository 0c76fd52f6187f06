// Which failures read as "the database is unavailable" (503) rather than a server fault (500).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isStoreUnavailable } from '../../src/http/store-unavailable.js';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe('isStoreUnavailable', () => {
  const unavailable: [string, unknown][] = [
    ['a refused connection', withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    ['a reset connection', withCode('read ECONNRESET', 'ECONNRESET')],
    ['a connect timeout', withCode('connect ETIMEDOUT', 'ETIMEDOUT')],
    ['both address families refused (AggregateError)', new AggregateError([withCode('a', 'ECONNREFUSED'), withCode('b', 'ECONNREFUSED')], 'connect failed')],
    ['a connection lost mid-query', new Error('Connection terminated unexpectedly')],
    ['a pool that cannot connect in time', new Error('timeout exceeded when trying to connect')],
    ['SQLSTATE 08006 connection failure', withCode('connection failure', '08006')],
    ['SQLSTATE 57P01 admin shutdown', withCode('terminating connection due to administrator command', '57P01')],
    ['SQLSTATE 57P03 cannot connect now', withCode('the database system is starting up', '57P03')],
    ['SQLSTATE 53300 too many connections', withCode('sorry, too many clients already', '53300')],
    ['SQLite locked beyond busy_timeout', withCode('database is locked', 'SQLITE_BUSY')],
    ['SQLite file that cannot be opened', withCode('unable to open database file', 'SQLITE_CANTOPEN')],
    ['a refused connection wrapped as a cause', new Error('query failed', { cause: withCode('connect ECONNREFUSED', 'ECONNREFUSED') })],
  ];
  for (const [what, error] of unavailable) {
    it(`› ${what} › is unavailable`, () => assert.equal(isStoreUnavailable(error), true));
  }

  const faults: [string, unknown][] = [
    ['a syntax error (SQLSTATE 42601)', withCode('syntax error at or near "selec"', '42601')],
    ['a unique violation (SQLSTATE 23505)', withCode('duplicate key value', '23505')],
    ['SQLite constraint failure', withCode('UNIQUE constraint failed', 'SQLITE_CONSTRAINT_UNIQUE')],
    ['a programming error', new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['a thrown string', 'ECONNREFUSED'],
    ['nothing', undefined],
  ];
  for (const [what, error] of faults) {
    it(`› ${what} › is a server fault, not unavailability`, () => assert.equal(isStoreUnavailable(error), false));
  }
});
