// Start-up settings that are wrong are named without echoing a URL that may carry a password.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resolveRuntimeSettings } from '../../src/config.js';
import { ConfigError } from '../../src/errors.js';
import { openStore } from '../../src/store/open-store.js';

const PASSWORD = 'hunter2-secret';

describe('start-up settings › a URL with a password', () => {
  it('REDIS_URL with another scheme is refused, naming the variable and the scheme only', () => {
    assert.throws(
      () => resolveRuntimeSettings({}, { REDIS_URL: `http://user:${PASSWORD}@cache:6379` }, './data/x.sqlite'),
      (error: unknown) => error instanceof ConfigError && /^REDIS_URL: must start with redis:\/\//.test(error.message) && /"http:"/.test(error.message) && !error.message.includes(PASSWORD),
    );
  });

  it('--db with a mistyped scheme is refused as a URL, not opened as a file, and not echoed', async () => {
    await assert.rejects(
      openStore(`postgre://app:${PASSWORD}@db:5432/intel`, { collections: [] }),
      (error: unknown) => error instanceof ConfigError && /^--db: "postgre:\/\/" is not a database URL scheme/.test(error.message) && !error.message.includes(PASSWORD),
    );
  });
});
