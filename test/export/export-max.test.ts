// GET /export/{collection}.txt|.csv?max=N and `threatgate export --max N` (docs/interface.md section 11): the lines kept by risk, then stamp_seen, then value, and the headers that say what was left out; on SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { MAX_LINES } from '../../src/export/export-format.js';
import { runCli } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';
import { basicAuth } from '../taxii/taxii-request.js';
import { ALL, CHOICE_ORDER, createMaxContext, FEED_ONE, MAX_COLLECTIONS, TEXT_CHOICE_ORDER, valueOf, type MaxContext } from './max-context.js';

const lines = (iids: readonly number[]) => iids.map((iid) => `${valueOf(iid)}\n`).join('');

for (const backend of storeBackends()) {
  describe(`device limits (max) on ${backend.name}`, () => {
    let ctx: MaxContext;
    before(async () => {
      ctx = await createMaxContext(backend);
    });
    after(async () => {
      await ctx?.store.close();
      await backend.cleanup();
    });
    const get = (path: string) => request(ctx.app).get(path).set('Authorization', basicAuth(ctx.proKey));

    describe('GET /export/{id}.txt?max=N', () => {
      it('keeps the N highest-risk lines, the latest seen first within a risk, then by value, in that order', async () => {
        const res = await get(`/export/${ALL}.txt?max=6`).expect(200);
        assert.equal(res.text, lines(TEXT_CHOICE_ORDER.slice(0, 6)));
        assert.equal(res.text, '198.51.100.3\nc2.example\nb.example\n198.51.100.5\nZ.example\na.example\n');
      });

      it('says in X-Export-Total how many lines the list has and in X-Export-Omitted how many it left out', async () => {
        const res = await get(`/export/${ALL}.txt?max=6`).expect(200);
        assert.equal(res.headers['x-export-total'], String(TEXT_CHOICE_ORDER.length));
        assert.equal(res.headers['x-export-omitted'], String(TEXT_CHOICE_ORDER.length - 6));
      });

      it('ranks none above unknown, puts a line never seen after the seen ones of its risk, and leaves retired ones out', async () => {
        const res = await get(`/export/${ALL}.txt?max=1000000`).expect(200);
        assert.equal(res.text, lines(TEXT_CHOICE_ORDER));
        assert.ok(!res.text.includes('198.51.100.11\n'), 'a retired indicator is listed');
        assert.equal(res.headers['x-export-omitted'], '0');
      });

      it('with a type filter, chooses among the lines of those types only', async () => {
        const res = await get(`/export/${ALL}.txt?type=domain&max=2`).expect(200);
        assert.equal(res.text, 'c2.example\nb.example\n');
        assert.equal(res.headers['x-export-total'], '4');
        assert.equal(res.headers['x-export-omitted'], '2');
      });

      it('in a collection filtered to a feed, chooses among the feed\u2019s lines only', async () => {
        const res = await get(`/export/${FEED_ONE}.txt?max=2`).expect(200);
        assert.equal(res.text, '198.51.100.5\nZ.example\n');
        assert.equal(res.headers['x-export-total'], '5');
        assert.equal(res.headers['x-export-omitted'], '3');
      });

      it('HEAD answers the same headers and no body', async () => {
        const res = await request(ctx.app).head(`/export/${ALL}.txt?max=3`).set('Authorization', basicAuth(ctx.proKey)).expect(200);
        assert.equal(res.headers['x-export-total'], String(TEXT_CHOICE_ORDER.length));
        assert.equal(res.headers['x-export-omitted'], String(TEXT_CHOICE_ORDER.length - 3));
        assert.equal(res.text, undefined);
      });
    });

    describe('GET /export/{id}.csv?max=N', () => {
      it('keeps the N first rows of the same choice, a value with a line break among them, with their threats', async () => {
        const res = await get(`/export/${ALL}.csv?max=3`).expect(200);
        assert.equal(
          res.text,
          [
            'value,type,risk,stamp_seen,threats',
            '"http://line.example/a\nb",url,critical,2025-08-01 00:00:00,',
            '198.51.100.3,ip,critical,2025-06-01 00:00:00,Emotet|Zeus',
            'c2.example,domain,critical,2025-05-01 00:00:00,',
            '',
          ].join('\r\n'),
        );
        assert.equal(res.headers['x-export-total'], String(CHOICE_ORDER.length));
        assert.equal(res.headers['x-export-omitted'], String(CHOICE_ORDER.length - 3));
      });
    });

    describe('GET /export/{id}.txt|.csv without max', () => {
      it('lists every line in ascending iid, with no count headers (nothing is left out, and no second pass counts the list)', async () => {
        const txt = await get(`/export/${ALL}.txt`).expect(200);
        assert.equal(txt.text, lines([...TEXT_CHOICE_ORDER].sort((a, b) => a - b)));
        assert.equal(txt.headers['x-export-total'], undefined);
        assert.equal(txt.headers['x-export-omitted'], undefined);
        const csv = await get(`/export/${ALL}.csv`).expect(200);
        assert.equal(csv.headers['x-export-total'], undefined);
        assert.equal(csv.headers['x-export-omitted'], undefined);
      });
    });

    describe('GET /export/{id}.txt › validators', () => {
      it('gives each max its own ETag: a validator of one max gets the list of another, and a 304 only for its own', async () => {
        const four = await get(`/export/${ALL}.txt?max=4`).expect(200);
        const five = await get(`/export/${ALL}.txt?max=5`).expect(200);
        const all = await get(`/export/${ALL}.txt`).expect(200);
        assert.equal(new Set([four.headers.etag, five.headers.etag, all.headers.etag]).size, 3);
        const other = await get(`/export/${ALL}.txt?max=5`).set('If-None-Match', four.headers.etag as string).expect(200);
        assert.equal(other.text, lines(TEXT_CHOICE_ORDER.slice(0, 5)));
        const same = await get(`/export/${ALL}.txt?max=4`).set('If-None-Match', four.headers.etag as string).expect(304);
        assert.equal(same.headers['x-export-total'], undefined);
      });
    });

    describe('GET /export/{id}.txt › a bad max', () => {
      for (const max of ['0', '-1', '1.5', '1e3', 'ten', '', '1000001', '+5']) {
        it(`max=${max} › 400 naming the parameter and what it takes`, async () => {
          const res = await get(`/export/${ALL}.txt?max=${encodeURIComponent(max)}`).expect(400);
          assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
          assert.match(res.body.error, /^Parameter "max": ".*" is not a whole number of lines from 1 to 1000000\.$/);
        });
      }
      it('max given twice › 400', async () => {
        const res = await get(`/export/${ALL}.txt?max=1&max=2`).expect(400);
        assert.equal(res.body.error, 'Parameter "max" must be given once.');
      });
      it('the OpenAPI document gives the ceiling the server holds to', async () => {
        const doc = JSON.parse((await request(ctx.app).get('/openapi.json').expect(200)).text);
        assert.equal(doc.components.parameters['export-max'].schema.maximum, MAX_LINES);
      });
    });

    describe('Store.exportIndicators with max', () => {
      it('gives the same rows in the same order whatever the page size', async () => {
        const collection = ctx.config.collections.find((c) => c.id === ALL)!;
        const read = async (pageSize: number) => {
          const iids: number[] = [];
          for await (const page of ctx.store.exportIndicators({ filter: collection.filter, withThreats: true, pageSize, max: 9 })) {
            assert.ok(page.length <= pageSize);
            iids.push(...page.map((row) => row.iid));
          }
          return iids;
        };
        assert.deepEqual(await read(5000), CHOICE_ORDER.slice(0, 9));
        for (const size of [1, 2, 4]) assert.deepEqual(await read(size), CHOICE_ORDER.slice(0, 9));
      });
    });

    describe('threatgate export --max N', () => {
      let dir: string;
      let configFile: string;
      before(() => {
        dir = mkdtempSync(join(tmpdir(), 'threatgate-export-max-'));
        configFile = join(dir, 'config.json');
        writeFileSync(configFile, JSON.stringify(MAX_COLLECTIONS));
      });
      after(() => rmSync(dir, { recursive: true, force: true }));

      it('writes the bytes GET ...?max=N sends, and says on stderr how many it kept and left out', async () => {
        const run = await runCli(['export', 'indicators', '--type', 'ip,domain', '--max', '4', '--db', ctx.location, '--config', configFile]);
        assert.equal(run.status, 0, run.stderr);
        const served = await get(`/export/${ALL}.txt?type=ip,domain&max=4`).set('Accept-Encoding', 'identity').expect(200);
        assert.equal(run.stdout, served.text);
        assert.equal(run.stderr, `export: --max 4 kept 4 of ${TEXT_CHOICE_ORDER.length} lines, left out ${TEXT_CHOICE_ORDER.length - 4}\n`);
      });

      it('--max 0 › exits 1 with one line naming the flag, and writes nothing', async () => {
        const run = await runCli(['export', 'indicators', '--max', '0', '--db', ctx.location, '--config', configFile]);
        assert.equal(run.status, 1);
        assert.equal(run.stderr.trim(), 'threatgate: --max: "0" is not a whole number of lines from 1 to 1000000');
        assert.equal(run.stdout, '');
      });
    });
  });
}
