// Import (docs/getting-started.md, "Import format"; docs/interface.md section 11): an indicator's type is one of the vocabulary, its attributes hold strings, and names and values
// hold no control character (names lose them, a value holding one is refused).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { generateDemo } from '../../src/demo/generate-demo.js';
import { ImportError } from '../../src/errors.js';
import { importFile } from '../../src/import/import-file.js';
import { INDICATOR_TYPES, isIndicatorType } from '../../src/indicator-types.js';
import { isPatternedIndicatorType, stixPattern } from '../../src/stix/stix-pattern.js';
import type { Store } from '../../src/store/contract/store.js';
import { buildFixture, toNdjson } from '../helpers/fixture.js';
import { storeBackends } from '../helpers/store-backends.js';
import { fixedClock } from '../helpers/test-app.js';
import { dbOf } from '../helpers/store-db.js';

const VOCABULARY = 'ip, ipv4, ipv6, cidr, domain, hostname, url, uri, email, md5, sha1, sha256, sha512, asn';

/** The fixture as NDJSON with indicator `iid` changed by `change`; threats and feeds take lines 1-6, so iid N is on line 6 + N. */
function withIndicator(iid: number, change: (indicator: Record<string, unknown>) => void): string {
  const data = buildFixture();
  change(data.indicators[iid - 1] as unknown as Record<string, unknown>);
  return toNdjson(data);
}

describe('the indicator type vocabulary', () => {
  it('holds every type the demo data and the fixture use', () => {
    const used = new Set([...generateDemo({ indicators: 3000 }).indicators, ...buildFixture().indicators].map((i) => i.type));
    for (const type of used) assert.ok(isIndicatorType(type), type);
  });

  it('is what the STIX mapping gives a pattern, no more and no less', () => {
    assert.equal(INDICATOR_TYPES.join(', '), VOCABULARY);
    for (const type of INDICATOR_TYPES) assert.equal(isPatternedIndicatorType(type), true, type);
    for (const type of ['ja3', 'mutex', 'registry', 'filename', '']) assert.equal(isPatternedIndicatorType(type), false, type);
    assert.doesNotThrow(() => stixPattern('SHA256', 'a'.repeat(64)));
  });
});

for (const backend of storeBackends()) {
  describe(`import (${backend.name})`, () => {
    let dir: string;
    const stores: Store[] = [];
    let n = 0;
    /** Imports `text` as a file into a fresh store. */
    async function importText(text: string) {
      const { store } = await backend.create();
      stores.push(store);
      const path = join(dir, `file-${++n}.ndjson`);
      writeFileSync(path, text);
      return { store, summary: await importFile(store, path, fixedClock) };
    }
    /** The import of `text` fails with `message`, keeping nothing. */
    async function refused(text: string, message: string | RegExp) {
      const { store } = await backend.create();
      stores.push(store);
      const path = join(dir, `file-${++n}.ndjson`);
      writeFileSync(path, text);
      await assert.rejects(importFile(store, path, fixedClock), (error: unknown) => {
        assert.ok(error instanceof ImportError, String(error));
        if (typeof message === 'string') assert.equal(error.message, message);
        else assert.match(error.message, message);
        return true;
      });
      assert.equal(await store.isEmpty(), true);
    }
    const indicator = async (store: Store, iid: number) =>
      (await dbOf(store).selectFrom('indicators').select(['type', 'attributes']).where('iid', '=', iid).executeTakeFirstOrThrow()) as { type: string; attributes: string };

    before(() => {
      dir = mkdtempSync(join(tmpdir(), 'threatgate-values-'));
    });
    after(async () => {
      for (const store of stores) await store.close();
      await backend.cleanup();
      rmSync(dir, { recursive: true, force: true });
    });

    describe('an indicator whose type is not in the vocabulary', () => {
      it('is refused with its line, naming the type and listing the vocabulary', async () => {
        await refused(
          withIndicator(5, (i) => (i.type = 'ja3')),
          `line 11: indicator type: "ja3" is unknown; the indicator types are ${VOCABULARY}`,
        );
      });
    });

    describe('an indicator type written in capitals or with blanks around it', () => {
      it('is taken as the vocabulary type, and stored under its lower-case name', async () => {
        const text = withIndicator(5, (i) => (i.type = 'IP')).replace('"type":"domain"', '"type":" Domain "');
        const { store } = await importText(text);
        assert.equal((await indicator(store, 5)).type, 'ip');
        assert.equal((await indicator(store, 3)).type, 'domain');
      });
    });

    describe('an attribute value given as a whole number', () => {
      it('is stored as its decimal string', async () => {
        const { store } = await importText(withIndicator(5, (i) => (i.attributes = { port: [443, '8443', -1, 0] })));
        assert.deepEqual(JSON.parse((await indicator(store, 5)).attributes), { port: ['443', '8443', '-1', '0'] });
      });
    });

    describe('an attribute value given as a number with a fraction', () => {
      it('is refused with its line and the attribute', async () => {
        await refused(
          withIndicator(5, (i) => (i.attributes = { port: ['80', 443.5] })),
          'line 11: indicator attributes.port.1: must be a string, or a whole number (stored as its decimal string)',
        );
      });
    });

    describe('an attribute value given as an integer beyond 2^53, which JSON parsing has already rounded', () => {
      it('is refused rather than stored with other digits', async () => {
        const text = withIndicator(5, (i) => (i.attributes = { port: ['PORT'] })).replace('"PORT"', '12345678901234567891');
        await refused(text, /^line 11: indicator attributes\.port\.0: must be a string, or a whole number/);
      });
    });

    describe('threat, other and feed names holding ESC, BEL, tab or C1 characters', () => {
      it('are stored without them, a tab or a line break as a space, and found by the names without them', async () => {
        const data = buildFixture();
        Object.assign(data.threats[0]!, { threat: '\x1b]0;owned\x07Ze\x1b[1mus', othernames: ['Z\x9bbot', 'Wsn\tpoem\r\n'] });
        Object.assign(data.feeds[0]!, { feed: 'Botnet\x07 C&C', organization: 'Example\x1b Labs' });
        const { store } = await importText(toNdjson(data));
        const threat = await dbOf(store).selectFrom('threats').select(['name', 'othernames']).where('tid', '=', 1).executeTakeFirstOrThrow();
        assert.deepEqual({ name: threat.name, othernames: JSON.parse(threat.othernames) }, { name: ']0;ownedZe[1mus', othernames: ['Zbot', 'Wsn poem '] });
        const keys = await dbOf(store).selectFrom('threat_names').select('name_key').where('tid', '=', 1).orderBy('name_key').execute();
        assert.deepEqual(keys.map((k) => k.name_key), [']0;ownedze[1mus', 'wsn poem ', 'zbot']);
        const feed = await dbOf(store).selectFrom('feeds').select(['name', 'organization']).where('fid', '=', 1).executeTakeFirstOrThrow();
        assert.deepEqual(feed, { name: 'Botnet C&C', organization: 'Example Labs' });
      });

      it('refuse a name that is nothing but control characters, with its line', async () => {
        const data = buildFixture();
        data.threats[1]!.threat = '\x1b\x07';
        await refused(toNdjson(data), 'line 2: threat threat: must hold more than control characters');
      });
    });

    describe('an indicator value holding a control character', () => {
      for (const [what, value] of [['ESC', 'host5.example\x1b.net'], ['a tab', '198.51.100.5\t'], ['CSI (U+009B)', 'host5.example.net\x9b']] as const) {
        it(`(${what}) is refused with its line rather than stored as another value`, async () => {
          await refused(
            withIndicator(5, (i) => (i.indicator = value)),
            'line 11: indicator indicator: holds a control character (U+0000-U+001F, U+007F-U+009F), which no indicator value does',
          );
        });
      }
    });

    describe('an attribute value with a fraction in a JSON document', () => {
      it('is refused naming its array index', async () => {
        const data = buildFixture();
        (data.indicators[7] as unknown as { attributes: unknown }).attributes = { port: [2.5] };
        const path = join(dir, 'document.json');
        writeFileSync(path, JSON.stringify(data));
        const { store } = await backend.create();
        stores.push(store);
        await assert.rejects(importFile(store, path, fixedClock), /^ImportError: indicators\[7\]: indicator attributes\.port\.0: must be a string/);
      });
    });
  });
}
