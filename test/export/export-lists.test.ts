// GET /export/{collection-id}.txt|.csv: the lists equal the collections' active indicators, on SQLite and (TEST_DATABASE_URL) PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { storeBackends } from '../helpers/store-backends.js';
import { basicAuth } from '../taxii/taxii-request.js';
import { ALL_COLLECTION, collectionTruth, createExportContext, FEED_COLLECTION, TEST_COLLECTION, type ExportContext } from './export-context.js';

/** A value a line can hold (a value with a line break is left out of the plain list). */
const oneLine = (value: string) => !/[\r\n]/.test(value);

for (const backend of storeBackends()) {
  describe(`exports on ${backend.name}`, () => {
    let ctx: ExportContext;
    before(async () => {
      ctx = await createExportContext(backend);
    });
    after(async () => {
      await ctx?.store.close();
      await backend.cleanup();
    });
    const get = (path: string) => request(ctx.app).get(path).set('Authorization', basicAuth(ctx.keys.pro!));

    for (const [name, id, unfiltered] of [
      ['the test collection', TEST_COLLECTION, false],
      ['the unfiltered collection', ALL_COLLECTION, true],
      ['a collection filtered to a feed', FEED_COLLECTION, false],
    ] as const) {
      describe(`GET /export/{${name}}.txt`, () => {
        it('lists the collection\u2019s active indicators, one value per line, retired ones left out, in iid order', async () => {
          const res = await get(`/export/${id}.txt`).expect(200);
          assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8');
          const truth = await collectionTruth(ctx.store, id, unfiltered);
          assert.ok(truth.length > 0);
          assert.equal(res.text, truth.filter((r) => oneLine(r.value)).map((r) => `${r.value}\n`).join(''));
          assert.ok(!res.text.includes('198.51.100.10\n'), 'a retired indicator is listed');
        });
      });
      describe(`GET /export/{${name}}.csv`, () => {
        it('has the header and one row per active indicator, the same values in the same order', async () => {
          const res = await get(`/export/${id}.csv`).expect(200);
          assert.equal(res.headers['content-type'], 'text/csv; charset=utf-8; header=present');
          const truth = await collectionTruth(ctx.store, id, unfiltered);
          const lines = res.text.split('\r\n');
          assert.equal(lines.shift(), 'value,type,risk,stamp_seen,threats');
          assert.equal(lines.pop(), '');
          // Rows holding a quoted line break span two lines of the split: join them back.
          const rows = lines.join('\r\n').split(/\r\n(?=(?:[^"]*"[^"]*")*[^"]*$)/);
          assert.equal(rows.length, truth.length);
        });
      });
    }

    describe('GET /export/{id}.csv', () => {
      it('quotes values with commas, quotes and line breaks per RFC 4180, and joins threat names with |', async () => {
        const res = await get(`/export/${ALL_COLLECTION}.csv?type=url`).expect(200);
        assert.equal(
          res.text,
          [
            'value,type,risk,stamp_seen,threats',
            '"http://evil.example.com/a,b",url,high,2025-05-01 00:00:00,"Quote ""Q"", Comma|Zeus"',
            'https://evil.example.org/path?q="x",url,high,,"Quote ""Q"", Comma"',
            '"http://line.example/a\nb",url,high,2025-05-01 00:00:00,"Quote ""Q"", Comma"',
            'ftp://files.example.net/x,url,high,,',
            'HTTPS://Upper.example/Path,url,high,2025-05-01 00:00:00,',
            '',
          ].join('\r\n').replace('https://evil.example.org/path?q="x"', '"https://evil.example.org/path?q=""x"""'),
        );
      });

      it('names the linked threats of an ip the way the lookup API links them', async () => {
        const res = await get(`/export/${ALL_COLLECTION}.csv?type=ip`).expect(200);
        const row3 = res.text.split('\r\n').find((line) => line.startsWith('198.51.100.1,'));
        assert.equal(row3, '198.51.100.1,ip,medium,2025-05-01 00:00:00,Zeus');
      });
    });

    describe('GET /export/{id}.txt › with type and style', () => {
      it('?type=domain,sha256 lists only those types', async () => {
        const res = await get(`/export/${ALL_COLLECTION}.txt?type=domain,SHA256`).expect(200);
        const truth = (await collectionTruth(ctx.store, ALL_COLLECTION, true)).filter((r) => r.type === 'domain' || r.type === 'sha256');
        assert.equal(res.text, truth.map((r) => `${r.value}\n`).join(''));
        assert.match(res.text, /^host3\.example\.net\n/);
      });

      it('?style=panos writes URLs without their scheme and leaves the line-break value out', async () => {
        const res = await get(`/export/${ALL_COLLECTION}.txt?type=url&style=panos`).expect(200);
        assert.equal(res.text, 'evil.example.com/a,b\nevil.example.org/path?q="x"\nfiles.example.net/x\nUpper.example/Path\n');
      });

      it('a type filter that matches nothing gives an empty list, and an empty CSV its header alone', async () => {
        assert.equal((await get(`/export/${ALL_COLLECTION}.txt?type=email`).expect(200)).text, '');
        assert.equal((await get(`/export/${ALL_COLLECTION}.csv?type=email`).expect(200)).text, 'value,type,risk,stamp_seen,threats\r\n');
      });
    });

    describe('Store.exportIndicators', () => {
      for (const [name, id, unfiltered] of [['the unfiltered collection', ALL_COLLECTION, true], ['a collection filtered to a feed', FEED_COLLECTION, false]] as const) {
        it(`pages ${name} by iid without losing or repeating a row, whatever the page size`, async () => {
          const collection = ctx.config.collections.find((c) => c.id === id)!;
          const read = async (pageSize: number) => {
            const rows = [];
            for await (const page of ctx.store.exportIndicators({ filter: collection.filter, withThreats: true, pageSize })) {
              assert.ok(page.length <= pageSize);
              rows.push(...page);
            }
            return rows;
          };
          const whole = await read(10_000);
          assert.deepEqual(whole.map((r) => r.iid), (await collectionTruth(ctx.store, id, unfiltered)).map((r) => r.iid));
          for (const size of [1, 4, 7]) assert.deepEqual(await read(size), whole);
        });
      }
    });
  });
}
