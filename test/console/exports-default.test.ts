// The console's Exports page opens on the collection serving every indicator, not on the config's first (the default config
// names the free 100-value test collection first): the rule on several lists of collections, and the page on the default config.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadConfig, type CollectionConfig } from '../../src/config.js';
import { defaultExportCollection } from '../../src/console/exports-page.js';
import { storeBackends } from '../helpers/store-backends.js';
import { openConsoleWorld, signIn, type ConsoleClient, type ConsoleWorld } from './console-world.js';

const DEFAULTS = loadConfig({}).collections;
const byAlias = (alias: string) => DEFAULTS.find((c) => c.alias === alias)!;
const collection = (id: string, filter: CollectionConfig['filter'], free = false): CollectionConfig => ({ id, title: id, free, filter });

describe('defaultExportCollection', () => {
  it('is the default config\'s indicators collection, though the test collection comes first', () => {
    assert.equal(DEFAULTS[0]!.alias, 'test');
    assert.equal(defaultExportCollection(DEFAULTS)?.alias, 'indicators');
  });

  it('is the first collection with no filter, wherever it is listed', () => {
    const lists = [
      [collection('sample', { sample: 100 }, true), collection('feed-1', { fid: 1 }), collection('all', {}), collection('all-2', {})],
      [collection('all', {}), collection('sample', { sample: 100 }, true)],
    ];
    for (const list of lists) assert.equal(defaultExportCollection(list)?.id, 'all');
  });

  it('without one, is the first view of the real data: neither free nor a sample', () => {
    const list = [collection('sample', { sample: 100 }, true), collection('free-high', { minRisk: 'high' }, true), collection('paid-sample', { sample: 10 }), collection('high', { minRisk: 'high' }), collection('feed-1', { fid: 1 })];
    assert.equal(defaultExportCollection(list)?.id, 'high');
  });

  it('without either, is the first; with no collection, none', () => {
    assert.equal(defaultExportCollection([collection('sample', { sample: 100 }, true), collection('other', { sample: 5 }, true)])?.id, 'sample');
    assert.equal(defaultExportCollection([]), undefined);
  });
});

for (const backend of storeBackends()) {
  describe(`console Exports page on the default config (${backend.name})`, () => {
    let world: ConsoleWorld;
    let client: ConsoleClient;
    before(async () => {
      world = await openConsoleWorld(backend);
      client = await signIn(world.app, world.adminKey);
    });
    after(async () => {
      await world?.close();
      await backend.cleanup();
    });

    it('opens with the indicators collection chosen, the test collection offered beside it', async () => {
      const html = (await client.get('/console/exports').expect(200)).text;
      const select = /<select id="export-collection"[^>]*>([\s\S]*?)<\/select>/.exec(html)?.[1] ?? assert.fail('no collection field');
      const options = [...select.matchAll(/<option value="([^"]+)"( selected)?/g)].map((m) => ({ id: m[1], selected: m[2] !== undefined }));
      assert.deepEqual(options, [
        { id: byAlias('test').id, selected: false },
        { id: byAlias('indicators').id, selected: true },
      ]);
    });

    it('keeps the collection the form sent', async () => {
      const html = (await client.get(`/console/exports?collection=${byAlias('test').id}&format=txt`).expect(200)).text;
      assert.match(html, new RegExp(`<option value="${byAlias('test').id}" selected`));
    });
  });
}
