// A serving process answers from reads alone while another process holds SQLite's write lock (a
// pull's transaction, which can last minutes on a large store). The secrets that sign TAXII `next`
// tokens and console sessions are made when serve starts; a process that reads them afterwards must
// write nothing, as on SQLite a write waits for the lock synchronously, stalling every request of
// that process. The store here gives up on the lock after 100 ms, so a write shows as a failed
// request rather than as a wait.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import request from 'supertest';
import { createApp } from '../../src/app.js';
import { createKey } from '../../src/cli/keys-command.js';
import { loadConfig } from '../../src/config.js';
import { importDataset } from '../../src/import/import-file.js';
import { createLogger } from '../../src/logger.js';
import type { Store } from '../../src/store/contract/store.js';
import { buildFixture } from '../helpers/fixture.js';
import { openTestStore } from '../helpers/store-db.js';
import { fixedClock } from '../helpers/test-app.js';
import { collectionPath, INDICATORS_COLLECTION, taxiiGet } from '../taxii/taxii-request.js';

describe('serving while another process holds the write lock (SQLite)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'threatgate-reads-during-writes-'));
  const dbFile = join(dir, 'store.sqlite');
  const config = loadConfig({ overrides: { cache: { versionCheckMs: 0 } } });
  let key = '';
  let writer: BetterSqlite3.Database;

  before(async () => {
    const setup = await openTestStore(dbFile, { collections: config.collections });
    try {
      await importDataset(setup, buildFixture(), fixedClock);
      key = (await createKey(setup, config, fixedClock, 'pro', 'reader')).key;
      // What serve's start does before any request (serve-command.ts, prepareStore).
      await setup.nextTokenSecret();
      await setup.consoleSecret();
    } finally {
      await setup.close();
    }
    // Another process's write transaction, as a pull's: it holds SQLite's write lock until rolled back.
    writer = new BetterSqlite3(dbFile);
    writer.prepare('begin immediate').run();
    writer.prepare("insert into meta (key, value) values ('held-by-test', 'x')").run();
  });
  after(() => {
    if (writer?.inTransaction) writer.prepare('rollback').run();
    writer?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A serving process's app over its own connection, its secrets not yet read. */
  async function servingApp(): Promise<{ app: ReturnType<typeof createApp>; store: Store }> {
    const store = await openTestStore(dbFile, { collections: config.collections, busyTimeoutMs: 100 });
    return { app: createApp(config, { store, clock: fixedClock, logger: createLogger('info', () => undefined) }), store };
  }

  it("signs a TAXII page's next token with the stored secret", async () => {
    const { app, store } = await servingApp();
    try {
      const res = await taxiiGet(app, `${collectionPath(INDICATORS_COLLECTION)}objects/?limit=1`, key);
      assert.equal(res.status, 200, res.text);
      const body = JSON.parse(res.text) as { more: boolean; next?: string };
      assert.equal(body.more, true);
      assert.equal(typeof body.next, 'string');
      const next = await taxiiGet(app, `${collectionPath(INDICATORS_COLLECTION)}objects/?limit=1&next=${encodeURIComponent(body.next!)}`, key);
      assert.equal(next.status, 200, next.text);
    } finally {
      await store.close();
    }
  });

  it('shows the console sign-in page, whose session check reads the stored secret', async () => {
    const { app, store } = await servingApp();
    try {
      const res = await request(app).get('/console/login').set('Cookie', 'tg_console=not-a-session');
      assert.equal(res.status, 200, res.text);
    } finally {
      await store.close();
    }
  });
  it('gives a write up after its busy timeout, having answered reads meanwhile', async () => {
    const store = await openTestStore(dbFile, { collections: config.collections, busyTimeoutMs: 300 });
    try {
      const events: string[] = [];
      const write = store
        .createConsoleSession({ sidHash: 'given-up-session', keyHash: 'k', createdAt: '2026-01-15 10:00:00', expiresMs: Date.parse('2026-01-16T10:00:00Z') })
        .then(() => events.push('write done'), (error: unknown) => events.push(`write failed: ${(error as { code?: string }).code}`));
      assert.equal((await store.findIndicator(1))?.iid, 1);
      events.push('read done');
      await write;
      assert.deepEqual(events, ['read done', 'write failed: SQLITE_BUSY']);
    } finally {
      await store.close();
    }
  });

  // Last: it ends the other process's write.
  it('answers reads while one of its writes waits for the lock, and makes the write once the lock is free', async () => {
    // The serving busy timeout: a write waits up to 10 s for the lock.
    const store = await openTestStore(dbFile, { collections: config.collections });
    try {
      const events: string[] = [];
      const write = store
        .createConsoleSession({ sidHash: 'waiting-session', keyHash: 'k', createdAt: '2026-01-15 10:00:00', expiresMs: Date.parse('2026-01-16T10:00:00Z') })
        .then(() => events.push('write done'), (error: unknown) => events.push(`write failed: ${String(error)}`));
      // A synchronous wait for the lock would hold this read (and the rollback below) until the write gave up.
      assert.equal((await store.findIndicator(1))?.iid, 1);
      events.push('read done');
      writer.prepare('rollback').run();
      await write;
      assert.deepEqual(events, ['read done', 'write done']);
    } finally {
      await store.close();
    }
  });
});
