// exportPreview (the console's Exports page): the export's own counts, first lines and URL; and the device presets it offers. On SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { DEVICE_LIMITS, deviceLimitById } from '../../src/export/device-limits.js';
import { MAX_LINES, parseTypes, type ExportOptions } from '../../src/export/export-format.js';
import { exportPreview } from '../../src/export/export-preview.js';
import { storeBackends } from '../helpers/store-backends.js';
import { basicAuth } from '../taxii/taxii-request.js';
import { ALL, CHOICE_ORDER, createMaxContext, FEED_ONE, TEXT_CHOICE_ORDER, valueOf, type MaxContext } from './max-context.js';

describe('DEVICE_LIMITS', () => {
  it('names each preset once, with a limit the export can take (or none)', () => {
    assert.equal(new Set(DEVICE_LIMITS.map((d) => d.id)).size, DEVICE_LIMITS.length);
    for (const device of DEVICE_LIMITS) if (device.maxLines !== undefined) assert.ok(Number.isInteger(device.maxLines) && device.maxLines >= 1 && device.maxLines <= MAX_LINES, device.id);
  });

  it('holds the vendors\u2019 figures: PAN-OS 50,000 and 150,000, FortiGate before 7.4.4 128K, pfBlockerNG and Pi-hole none', () => {
    assert.equal(deviceLimitById('panos-50k')?.maxLines, 50_000);
    assert.equal(deviceLimitById('panos-150k')?.maxLines, 150_000);
    assert.equal(deviceLimitById('fortigate-128k')?.maxLines, 131_072);
    assert.equal(deviceLimitById('none')?.maxLines, undefined);
    assert.equal(deviceLimitById('nope'), undefined);
  });
});

for (const backend of storeBackends()) {
  describe(`exportPreview on ${backend.name}`, () => {
    let ctx: MaxContext;
    before(async () => {
      ctx = await createMaxContext(backend);
    });
    after(async () => {
      await ctx?.store.close();
      await backend.cleanup();
    });
    const collection = (id: string) => ctx.config.collections.find((c) => c.id === id)!;
    const served = async (path: string) => (await request(ctx.app).get(path).set('Authorization', basicAuth(ctx.proKey)).expect(200)).text;

    it('with max: the counts of the list, its first kept lines, and the URL whose body begins with them', async () => {
      const options: ExportOptions = { format: 'txt', types: parseTypes('ip,domain'), max: 5 };
      const preview = await exportPreview(ctx.store, collection(ALL), options, 3);
      assert.deepEqual(preview, {
        total: TEXT_CHOICE_ORDER.length,
        kept: 5,
        omitted: TEXT_CHOICE_ORDER.length - 5,
        firstLines: TEXT_CHOICE_ORDER.slice(0, 3).map(valueOf),
        url: `/export/${ALL}.txt?type=ip,domain&max=5`,
      });
      const body = await served(preview.url);
      assert.equal(body.split('\n').length - 1, 5);
      assert.ok(body.startsWith(preview.firstLines.map((line) => `${line}\n`).join('')));
    });

    it('without max: the first lines in ascending iid, nothing omitted, and a URL without max', async () => {
      const preview = await exportPreview(ctx.store, collection(FEED_ONE), { format: 'txt' }, 20);
      assert.deepEqual(preview, { total: 5, kept: 5, omitted: 0, firstLines: [1, 5, 6, 9, 12].map(valueOf), url: `/export/${FEED_ONE}.txt` });
      assert.equal(await served(preview.url), preview.firstLines.map((line) => `${line}\n`).join(''));
    });

    it('as CSV: the records as the CSV writes them, without the header, the line-break value quoted', async () => {
      const preview = await exportPreview(ctx.store, collection(ALL), { format: 'csv', style: 'panos', max: 2 }, 20);
      assert.equal(preview.total, CHOICE_ORDER.length);
      assert.deepEqual(preview.firstLines, ['"line.example/a\nb",url,critical,2025-08-01 00:00:00,', '198.51.100.3,ip,critical,2025-06-01 00:00:00,Emotet|Zeus']);
      assert.equal(preview.url, `/export/${ALL}.csv?style=panos&max=2`);
      assert.ok((await served(preview.url)).startsWith(`value,type,risk,stamp_seen,threats\r\n${preview.firstLines.join('\r\n')}\r\n`));
    });

    it('a max above the list keeps every line and omits none', async () => {
      const preview = await exportPreview(ctx.store, collection(ALL), { format: 'txt', max: MAX_LINES }, 2);
      assert.equal(preview.kept, TEXT_CHOICE_ORDER.length);
      assert.equal(preview.omitted, 0);
      assert.deepEqual(preview.firstLines, TEXT_CHOICE_ORDER.slice(0, 2).map(valueOf));
    });
  });
}
