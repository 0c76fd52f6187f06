// CSV exports open safely in a spreadsheet (docs/interface.md section 11): a cell that could start a formula gets a leading ', over HTTP and
// from `threatgate export` alike, while the plain-text list stays as stored; SQLite and (TEST_DATABASE_URL) PostgreSQL.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { exportCommand } from '../../src/cli/export-command.js';
import { importDataset } from '../../src/import/import-file.js';
import { storeBackends } from '../helpers/store-backends.js';
import { fixedClock } from '../helpers/test-app.js';
import { basicAuth } from '../taxii/taxii-request.js';
import { ALL_COLLECTION, createExportContext, type ExportContext } from './export-context.js';
import { dbOf } from '../helpers/store-db.js';

const SEEN = '2025-05-01 00:00:00';

/** [iid, value, tid, threat name], each email linked to its one threat; tids past the fixture's. */
const HOSTILE: readonly [iid: number, value: string, tid: number, threat: string][] = [
  [41, '=x@evil.example', 11, '=HYPERLINK("http://x","y")'],
  [42, '+x@evil.example', 12, "+cmd|' /C calc'!A0"],
  [43, '-x@evil.example', 13, '@SUM(1+1)'],
  [44, '@SUM(1+1)', 14, '-2+3'],
  [45, 'plain@evil.example', 15, 'Plain'],
];

/**
 * Cells beginning with a tab or a CR, which ingest no longer lets in (names lose their control
 * characters, values holding one are refused): set in place, as a store written before may hold them.
 */
const LEGACY: readonly [iid: number, value: string, tid: number, threat: string][] = [
  [46, '\t=1+1@evil.example', 16, '\t=1+1'],
  [47, '\r=1+1@evil.example', 17, '\r=1+1'],
];

async function addHostileRows(ctx: ExportContext): Promise<void> {
  const rows = [...HOSTILE, ...LEGACY];
  await importDataset(
    ctx.store,
    {
      threats: rows.map(([, , tid]) => ({ tid, threat: `Threat ${tid}`, category: 'malware', risk: 'high' })),
      feeds: [],
      indicators: rows.map(([iid]) => ({ iid, indicator: `placeholder-${iid}@evil.example`, type: 'email', risk: 'high', stamp_seen: SEEN })),
      links: rows.map(([iid, , tid]) => ({ iid, tid, stamp_linked: SEEN })),
    },
    fixedClock,
  );
  for (const [iid, value, tid, threat] of rows) {
    await dbOf(ctx.store).updateTable('indicators').set({ value }).where('iid', '=', iid).execute();
    await dbOf(ctx.store).updateTable('threats').set({ name: threat }).where('tid', '=', tid).execute();
  }
}

const EXPECTED_CSV = [
  'value,type,risk,stamp_seen,threats',
  `'=x@evil.example,email,high,${SEEN},"'=HYPERLINK(""http://x"",""y"")"`,
  `'+x@evil.example,email,high,${SEEN},'+cmd|' /C calc'!A0`,
  `'-x@evil.example,email,high,${SEEN},'@SUM(1+1)`,
  `'@SUM(1+1),email,high,${SEEN},'-2+3`,
  `plain@evil.example,email,high,${SEEN},Plain`,
  `'\t=1+1@evil.example,email,high,${SEEN},'\t=1+1`,
  // Quoted for the CR it holds, and prefixed: a spreadsheet that trims the CR still finds no formula.
  `"'\r=1+1@evil.example",email,high,${SEEN},"'\r=1+1"`,
  '',
].join('\r\n');

/** The plain list as it was before the rule: each value as stored, the one holding a line break (CR) left out. */
const EXPECTED_TXT = '=x@evil.example\n+x@evil.example\n-x@evil.example\n@SUM(1+1)\nplain@evil.example\n\t=1+1@evil.example\n';

for (const backend of storeBackends()) {
  describe(`exports of values and threat names that start formulas (${backend.name})`, () => {
    let ctx: ExportContext;
    before(async () => {
      ctx = await createExportContext(backend);
      await addHostileRows(ctx);
    });
    after(async () => {
      await ctx?.store.close();
      await backend.cleanup();
    });
    const get = (path: string) => request(ctx.app).get(path).set('Authorization', basicAuth(ctx.keys.pro!)).set('Accept-Encoding', 'identity');

    it("GET /export/{id}.csv › gives each cell beginning with =, +, -, @, tab or CR a leading '", async () => {
      const res = await get(`/export/${ALL_COLLECTION}.csv?type=email`).expect(200);
      assert.equal(res.text, EXPECTED_CSV);
    });

    it('GET /export/{id}.txt › lists the same values byte for byte as stored, without a quote', async () => {
      const res = await get(`/export/${ALL_COLLECTION}.txt?type=email`).expect(200);
      assert.equal(res.text, EXPECTED_TXT);
    });

    /** Without --max the command has nothing to say on stderr. */
    const saysNothing = (line: string) => assert.fail(`export said "${line}" without --max`);

    it("threatgate export --format csv › writes the same cells, each with its leading '", async () => {
      let written = '';
      const stdout = new Writable({
        write(chunk: Buffer, _encoding, done) {
          written += chunk.toString('utf8');
          done();
        },
      });
      await exportCommand([ALL_COLLECTION], { format: 'csv', type: 'email' }, { store: ctx.store, config: ctx.config, stdout, err: saysNothing });
      assert.equal(written, EXPECTED_CSV);
    });

    it('threatgate export (txt) › writes the plain list unchanged', async () => {
      let written = '';
      const stdout = new Writable({
        write(chunk: Buffer, _encoding, done) {
          written += chunk.toString('utf8');
          done();
        },
      });
      await exportCommand([ALL_COLLECTION], { type: 'email' }, { store: ctx.store, config: ctx.config, stdout, err: saysNothing });
      assert.equal(written, EXPECTED_TXT);
    });
  });
}
