// TAXII envelopes, manifests, versions and date headers (TAXII 2.1 sections 3.4.3, 3.7, 5.3, 5.8; docs/interface.md section 9.4), direct.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dateAddedHeaders, envelopeJson, manifestJson, versionsJson, type PageResult } from '../../src/taxii/envelope.js';
import type { ListedObject } from '../../src/store/contract/records.js';

/** Written out, not imported from src: the exact bytes TAXII clients compare against. */
const STIX_TYPE = 'application/stix+json;version=2.1';
const NEXT = 'eyJwIjoxfQ.c2lnbmF0dXJl';

/** Microseconds since the epoch of 2026-01-15T10:00:00Z. */
const T0 = Date.UTC(2026, 0, 15, 10) * 1000;

/** A listed object whose stored body keeps the key order it was written with (not alphabetical). */
function listed(n: number, dateAdded: number): ListedObject {
  const id = `indicator--00000000-0000-5000-8000-00000000000${n}`;
  const modified = `2026-01-0${n}T00:00:00.000Z`;
  return { id, type: 'indicator', modified, dateAdded, body: `{"type":"indicator","spec_version":"2.1","id":"${id}","modified":"${modified}","name":"n${n}"}` };
}

const A = listed(1, T0 + 1);
const B = listed(2, T0 + 2);
const C = listed(3, T0 + 3);

const page = (items: ListedObject[], more: boolean, next: string | null): PageResult => ({ items, more, next });

const envelopeCases: [condition: string, page: PageResult, outcome: string, json: string][] = [
  ['an empty result', page([], false, null), 'is exactly {"more":false}, without objects', '{"more":false}'],
  ['one object on the last page', page([A], false, null), 'is more: false and the object', `{"more":false,"objects":[${A.body}]}`],
  ['three objects on the last page', page([A, B, C], false, null), 'is more: false and the objects in listing order', `{"more":false,"objects":[${A.body},${B.body},${C.body}]}`],
  ['a page with more after it', page([A, B], true, NEXT), 'is more: true, next, then the objects', `{"more":true,"next":"${NEXT}","objects":[${A.body},${B.body}]}`],
  ['a next token needing JSON escapes', page([A], true, 'a"b\\c'), 'carries the token JSON-escaped', `{"more":true,"next":"a\\"b\\\\c","objects":[${A.body}]}`],
  ['a next token on the last page', page([A], false, NEXT), 'leaves the token out', `{"more":false,"objects":[${A.body}]}`],
];

describe('envelopeJson', () => {
  for (const [condition, p, outcome, json] of envelopeCases) {
    it(`${condition} › ${outcome}`, () => {
      assert.equal(envelopeJson(p, false), json);
    });

    it(`${condition} › with pretty › is the same envelope indented by 2 spaces`, () => {
      assert.equal(envelopeJson(p, true), JSON.stringify(JSON.parse(json), null, 2));
    });
  }

  describe('with taxii.emptyObjectsList', () => {
    const cases: [condition: string, page: PageResult, body: unknown][] = [
      ['an empty last page', page([], false, null), { more: false, objects: [] }],
      ['an empty page before more', page([], true, NEXT), { more: true, next: NEXT, objects: [] }],
      ['a page with objects', page([A], false, null), { more: false, objects: [JSON.parse(A.body!)] }],
    ];
    for (const [condition, p, body] of cases) {
      it(`${condition} › carries an objects list, empty or not, compact and pretty`, () => {
        assert.deepEqual(JSON.parse(envelopeJson(p, false, true)), body);
        assert.equal(envelopeJson(p, true, true), JSON.stringify(body, null, 2));
      });
    }
  });

  it('splices the stored bodies in byte for byte, keeping their key order', () => {
    const text = envelopeJson(page([A], false, null), false);
    assert.ok(text.includes(`"objects":[{"type":"indicator","spec_version":"2.1","id":"${A.id}","modified":"${A.modified}","name":"n1"}]`), text);
  });
});

describe('manifestJson', () => {
  const entry = (o: ListedObject, dateAdded: string) => ({ id: o.id, date_added: dateAdded, version: o.modified, media_type: STIX_TYPE });
  const cases: [condition: string, page: PageResult, outcome: string, body: unknown][] = [
    ['an empty result', page([], false, null), 'is {"more":false} with no objects', { more: false }],
    ['objects on the last page', page([A, C], false, null), 'lists id, date_added, version and the STIX media type per object', { more: false, objects: [entry(A, '2026-01-15T10:00:00.000001Z'), entry(C, '2026-01-15T10:00:00.000003Z')] }],
    ['a page with more after it', page([B], true, NEXT), 'carries more: true with next before the entries', { more: true, next: NEXT, objects: [entry(B, '2026-01-15T10:00:00.000002Z')] }],
  ];
  for (const [condition, p, outcome, body] of cases) {
    it(`${condition} › ${outcome}, plain or pretty`, () => {
      assert.equal(manifestJson(p, false), JSON.stringify(body));
      assert.equal(manifestJson(p, true), JSON.stringify(body, null, 2));
    });
  }
});

describe('versionsJson', () => {
  const cases: [condition: string, page: PageResult, outcome: string, json: string][] = [
    ['an empty result', page([], false, null), 'is {"more":false} with no versions', '{"more":false}'],
    ['the one stored version', page([A], false, null), 'lists its modified timestamp', `{"more":false,"versions":["${A.modified}"]}`],
    ['a page with more after it', page([A, B], true, NEXT), 'carries more: true with next before the versions', `{"more":true,"next":"${NEXT}","versions":["${A.modified}","${B.modified}"]}`],
  ];
  for (const [condition, p, outcome, json] of cases) {
    it(`${condition} › ${outcome}, plain or pretty`, () => {
      assert.equal(versionsJson(p, false), json);
      assert.equal(versionsJson(p, true), JSON.stringify(JSON.parse(json), null, 2));
    });
  }
});

describe('dateAddedHeaders', () => {
  const cases: [condition: string, items: ListedObject[], headers: Record<string, string>][] = [
    ['an empty page', [], {}],
    ['a page of one object', [listed(1, T0 + 123456)], { 'X-TAXII-Date-Added-First': '2026-01-15T10:00:00.123456Z', 'X-TAXII-Date-Added-Last': '2026-01-15T10:00:00.123456Z' }],
    [
      'a page of several objects',
      [listed(1, T0), listed(2, T0 + 7), listed(3, T0 + 1_000_000), listed(4, T0 + 86_400_000_000 + 999_999)],
      { 'X-TAXII-Date-Added-First': '2026-01-15T10:00:00.000000Z', 'X-TAXII-Date-Added-Last': '2026-01-16T10:00:00.999999Z' },
    ],
    [
      'objects at microseconds that milliseconds cannot tell apart',
      [listed(1, T0 + 1_001), listed(2, T0 + 1_999)],
      { 'X-TAXII-Date-Added-First': '2026-01-15T10:00:00.001001Z', 'X-TAXII-Date-Added-Last': '2026-01-15T10:00:00.001999Z' },
    ],
  ];
  for (const [condition, items, headers] of cases) {
    const outcome = Object.keys(headers).length === 0 ? 'has no date headers' : 'names the first and last object\'s date_added with 6 fractional digits';
    it(`${condition} › ${outcome}`, () => {
      assert.deepEqual(dateAddedHeaders(items), headers);
    });
  }

  it('a page as listed › takes its first and last items (the listing orders by date_added), not the extremes', () => {
    const headers = dateAddedHeaders([listed(1, T0 + 5), listed(2, T0 + 9), listed(3, T0 + 6)]);
    assert.deepEqual(headers, { 'X-TAXII-Date-Added-First': '2026-01-15T10:00:00.000005Z', 'X-TAXII-Date-Added-Last': '2026-01-15T10:00:00.000006Z' });
  });

  it('a page rendered as a manifest › agrees with the date_added of its first and last entries', () => {
    const items = [A, B, C];
    const manifest = JSON.parse(manifestJson(page(items, false, null), false)) as { objects: { date_added: string }[] };
    assert.deepEqual(dateAddedHeaders(items), { 'X-TAXII-Date-Added-First': manifest.objects[0]!.date_added, 'X-TAXII-Date-Added-Last': manifest.objects[2]!.date_added });
  });
});

describe('every body › a page marked more without a next token', () => {
  const item = { id: 'indicator--1', type: 'indicator', modified: '2026-01-01T00:00:00.000Z', dateAdded: 1, body: '{"id":"indicator--1"}' };
  const orphan = { items: [item], more: true, next: null };
  for (const [name, render] of [['envelopeJson', envelopeJson], ['manifestJson', manifestJson], ['versionsJson', versionsJson]] as const) {
    for (const pretty of [false, true]) {
      it(`${name} (pretty ${pretty}) says more: false, never more: true without next`, () => {
        assert.equal(JSON.parse(render(orphan, pretty)).more, false);
      });
    }
  }
});
