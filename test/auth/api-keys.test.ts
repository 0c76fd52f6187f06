// API keys: only hashes are stored, revoked and unknown keys are refused, keys never reach the log.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { createTestContext, fixedClock, GENEROUS_PLANS, type TestContext } from '../helpers/test-app.js';
import { createKey } from '../../src/cli/keys-command.js';
import { generateKey, hashKey } from '../../src/auth/key-secret.js';
import { createKeyAuthenticators } from '../../src/auth/authenticate-key.js';
import { dbOf } from '../helpers/store-db.js';

describe('API keys on the lookup API', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext({ overrides: GENEROUS_PLANS });
  });
  after(() => ctx.close());

  it('are stored only as SHA-256 hashes: the key string is not in the database file', async () => {
    const { key } = await createKey(ctx.store, ctx.config, fixedClock, 'pro', 'disk check');
    await dbOf(ctx.store).selectFrom('api_keys').selectAll().execute();
    const bytes = Buffer.concat([readFileSync(ctx.dbFile), readFileSync(`${ctx.dbFile}-wal`, { flag: 'a+' })]);
    assert.equal(bytes.includes(Buffer.from(key)), false);
    assert.equal(bytes.includes(Buffer.from(hashKey(key))), true);
  });

  it('are 43 base64url characters (32 random bytes)', async () => {
    assert.match(ctx.keys.pro!, /^[A-Za-z0-9_-]{43}$/);
  });

  it('never begin with "-", which a command line would read as an option', () => {
    // One key in 64 would without the redraw: 5,000 draws all pass it by chance with odds of 1e-34.
    const firsts = new Set<string>();
    for (let i = 0; i < 5_000; i++) {
      const key = generateKey();
      assert.match(key, /^[A-Za-z0-9_][A-Za-z0-9_-]{42}$/);
      firsts.add(key[0]!);
    }
    assert.equal(firsts.size, 63, 'every other first character still occurs');
  });

  describe('with an unknown key', () => {
    it('answers 401 with {"error": ...}', async () => {
      const res = await request(ctx.app).get('/api/threat.php?tid=1&key=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA').expect(401);
      assert.deepEqual(res.body, { error: 'Unknown or revoked API key.' });
    });

    for (const bad of ['', 'short', 'has spaces in it!!!!!!!!', 'x'.repeat(300)]) {
      it(`answers 401 for the malformed key "${bad.slice(0, 12)}"`, async () => {
        await request(ctx.app).get('/api/threat.php').query({ tid: 1, key: bad }).expect(401);
      });
    }

    it('answers 400 when key is given twice', async () => {
      const res = await request(ctx.app).get(`/api/threat.php?tid=1&key=${ctx.keys.pro}&key=${ctx.keys.free}`).expect(400);
      assert.deepEqual(res.body, { error: 'Parameter "key" must be given once.' });
    });
  });

  describe('with a revoked key', () => {
    it('answers 401 from the moment it is revoked', async () => {
      const { id, key } = await createKey(ctx.store, ctx.config, fixedClock, 'team');
      await request(ctx.app).get(`/api/threat.php?tid=1&key=${key}`).expect(200);
      assert.equal(await ctx.store.revokeKey({ id }, '2026-01-15 10:00:00'), id);
      const res = await request(ctx.app).get(`/api/threat.php?tid=1&key=${key}`).expect(401);
      assert.deepEqual(res.body, { error: 'Unknown or revoked API key.' });
    });
  });

  describe('in the request log', () => {
    it('never shows the key of a request that carried it in the query', async () => {
      ctx.logLines.length = 0;
      const key = ctx.keys.business!;
      await request(ctx.app).get(`/api/threat.php?tid=1&key=${key}&pretty=1`).expect(200);
      await request(ctx.app).get(`/api/threat.php?KEY=${key}&tid=1`).expect(200);
      await request(ctx.app).get(`/api/nowhere?key=${key}`).expect(404);
      const log = ctx.logLines.join('');
      assert.equal(log.includes(key), false);
      assert.equal(ctx.logLines.length, 3);
      assert.match(log, /key=\[redacted\]/);
      const entry = JSON.parse(ctx.logLines[0]!);
      assert.equal(entry.status, 200);
      assert.match(entry.url, /^\/api\/threat\.php\?tid=1&key=\[redacted\]&pretty=1$/);
    });

    it('never shows the value of a parameter whose name starts with "key", however it is spelled or escaped', async () => {
      ctx.logLines.length = 0;
      const secret = 'SECRETVALUEthatmustnotbelogged';
      const names = ['key[]', 'key[0]', 'keyfoo', 'KEY', 'Key', 'k%65y', 'K%45Y%5B%5D', 'k%2565y', 'api_key', 'token'];
      for (const name of names) {
        await request(ctx.app).get(`/api/threat.php?tid=1&${name}=${secret}`);
        await request(ctx.app).get(`/taxii2/?${name}=${secret}&accept=${encodeURIComponent('application/taxii+json;version=2.1')}`);
        await request(ctx.app).get(`/export/indicators.txt?${name}=${secret}`);
      }
      assert.equal(ctx.logLines.length, names.length * 3);
      assert.equal(ctx.logLines.join('').includes(secret), false, 'a key value is in the log');
      const urls = ctx.logLines.map((line) => JSON.parse(line).url as string);
      assert.ok(urls.every((url) => url.includes('=[redacted]')), urls.join('\n'));
      // Other parameters are kept for debugging.
      assert.match(urls[0]!, /^\/api\/threat\.php\?tid=1&key\[\]=\[redacted\]$/);
    });

    it('never shows an Authorization header', async () => {
      ctx.logLines.length = 0;
      await request(ctx.app).get('/api/threat.php?tid=1').set('Authorization', 'Basic dGF4aWkyOnNlY3JldA==').expect(200);
      assert.equal(ctx.logLines.join('').includes('dGF4aWkyOnNlY3JldA'), false);
    });
  });
});

describe('key records cached by the server', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext({ overrides: GENEROUS_PLANS });
  });
  after(() => ctx.close());

  it('stop working once the keys version is next read after a revocation elsewhere (cache.versionCheckMs)', async () => {
    let now = fixedClock.now();
    const clock = { now: () => now };
    const authenticate = createKeyAuthenticators(ctx.store, { ...ctx.config, cache: { ...ctx.config.cache, versionCheckMs: 1000 } }, clock).forPlans;
    const { key } = await createKey(ctx.store, ctx.config, fixedClock, 'pro', 'cached');
    assert.equal((await authenticate({ address: '192.0.2.1', key })).planName, 'pro');
    // Another process (the keys command) revokes it: this one keeps the record for up to a second.
    assert.ok(await ctx.store.revokeKey({ hash: hashKey(key) }, '2026-01-01 00:00:00'));
    assert.equal((await authenticate({ address: '192.0.2.1', key })).planName, 'pro');
    now += 1001;
    await assert.rejects(async () => authenticate({ address: '192.0.2.1', key }), /Unknown or revoked API key/);
  });

  it('never keep unknown keys: a key created after a failed attempt works at once', async () => {
    const authenticate = createKeyAuthenticators(ctx.store, { ...ctx.config, cache: { ...ctx.config.cache, versionCheckMs: 60_000 } }, fixedClock).forPlans;
    const { key } = await createKey(ctx.store, ctx.config, fixedClock, 'free', 'late');
    await dbOf(ctx.store).deleteFrom('api_keys').where('hash', '=', hashKey(key)).execute();
    await assert.rejects(async () => authenticate({ address: '192.0.2.1', key }), /Unknown or revoked API key/);
    await ctx.store.insertKey({ id: 'k_late00000001', hash: hashKey(key), plan: 'free', label: null, created_at: '2026-01-01 00:00:00' });
    assert.equal((await authenticate({ address: '192.0.2.1', key })).planName, 'free');
  });
});
