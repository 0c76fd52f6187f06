// The stix reader: a bundle with every pattern form, what is skipped and counted (and why), what is withdrawn (revoked, expired), per-indicator risk from `confidence`, threats and `indicates` relations in any order, objects it cannot read, and bodies it refuses.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FeedBatch, FeedEntry, FeedRelation } from '../../../src/sources/parsers/feed-entry.js';
import { mapStixObjects, readStixBundle, StixObjectMapper } from '../../../src/sources/parsers/read-stix.js';
import { CUTS, chunked, fixture } from './feed-chunks.js';

const NOW = Date.parse('2025-06-01T00:00:00Z');
const id = (type: string, n: number) => `${type}--5c3a9e1d-7f42-4b6e-9a10-${String(n).padStart(12, '0')}`;
const ind = (n: number) => id('indicator', n);

interface Collected {
  entries: FeedBatch['entries'];
  skipped: number;
  relations: FeedRelation[];
  withdrawn: FeedEntry[];
  batches: number;
}

async function collect(batches: AsyncIterable<FeedBatch>): Promise<Collected> {
  const all: Collected = { entries: [], skipped: 0, relations: [], withdrawn: [], batches: 0 };
  for await (const batch of batches) {
    all.batches++;
    all.entries.push(...batch.entries);
    all.skipped += batch.skipped;
    all.relations.push(...(batch.relations ?? []));
    all.withdrawn.push(...(batch.withdrawn ?? []));
  }
  return all;
}

/** Reads `body` once per cut (whole, 7-byte, 1-byte, 5-character chunks): all must agree but for the batch count. */
async function readEveryWay(body: Buffer | string): Promise<Omit<Collected, 'batches'>> {
  const results = [];
  for (const cut of CUTS) {
    const { batches: _, ...result } = await collect(readStixBundle(chunked(body, cut.size, cut.text), NOW));
    results.push(result);
  }
  const [first, ...others] = results;
  others.forEach((other, i) => assert.deepEqual(other, first, `read ${CUTS[i + 1]!.name}`));
  return first!;
}

async function rejectsEveryWay(body: string, message: string | RegExp): Promise<void> {
  for (const cut of CUTS) {
    await assert.rejects(collect(readStixBundle(chunked(body, cut.size, cut.text), NOW)), { name: 'FeedFormatError', message }, `read ${cut.name}`);
  }
}

const bundle = (objects: unknown[], extra: Record<string, unknown> = {}) => JSON.stringify({ type: 'bundle', id: 'bundle--1', ...extra, objects });

describe('readStixBundle', () => {
  describe('the fixture bundle (every pattern form, AND, revoked, expired, relationships before and after their targets)', () => {
    it('gives one entry per value, with the indicator as ref and its place as position', async () => {
      const { entries } = await readEveryWay(fixture('stix-bundle.json'));
      assert.deepEqual(entries, [
        { value: '192.0.2.10', type: 'ip', position: 'objects[2]', ref: ind(1) },
        { value: '2001:db8::1', type: 'ipv6', position: 'objects[3]', ref: ind(2) },
        { value: 'c2.example.com', type: 'domain', position: 'objects[4]', ref: ind(3) },
        { value: "http://example.net/p?q='] OR [ipv4-addr:value = '192.0.2.99'&b=c:\\d]e", type: 'url', position: 'objects[5]', ref: ind(4) },
        { value: 'phish@example.org', type: 'email', position: 'objects[6]', ref: ind(5) },
        { value: 'd41d8cd98f00b204e9800998ecf8427e', type: 'md5', position: 'objects[7]', ref: ind(6) },
        { value: '0cc175b9c0f1b6a831c399e269772661', type: 'md5', position: 'objects[8]', ref: ind(7) },
        { value: 'da39a3ee5e6b4b0d3255bfef95601890afd80709', type: 'sha1', position: 'objects[9]', ref: ind(8) },
        { value: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', type: 'sha256', position: 'objects[10]', ref: ind(9) },
        { value: '198.51.100.7', type: 'ip', position: 'objects[11]', ref: ind(10) },
        { value: 'bad.example.net', type: 'domain', position: 'objects[11]', ref: ind(10) },
        { value: '203.0.113.5', type: 'ip', position: 'objects[12]', ref: ind(11) },
        { value: 'https://example.com/x', type: 'url', position: 'objects[12]', ref: ind(11) },
        // objects[13] AND: skipped. [14] revoked, [15] expired: withdrawn. [16] expires later and is valid from a future date: read.
        { value: '198.51.100.20', type: 'ip', position: 'objects[16]', ref: ind(15) },
        // [17] a snort pattern, [18] LIKE: skipped. [31] a STIX 2.0-style indicator without pattern_type: read.
        { value: 'ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb', type: 'sha256', position: 'objects[31]', ref: ind(18) },
      ]);
    });

    it('counts the AND, non-STIX and LIKE indicators as skipped, and nothing else', async () => {
      assert.equal((await readEveryWay(fixture('stix-bundle.json'))).skipped, 3);
    });

    it('gives the values of the revoked and the expired indicator as withdrawn, without a ref', async () => {
      assert.deepEqual((await readEveryWay(fixture('stix-bundle.json'))).withdrawn, [
        { value: '203.0.113.7', type: 'ip', position: 'objects[14]' },
        { value: '203.0.113.8', type: 'ip', position: 'objects[15]' },
      ]);
    });

    it('says why each skipped indicator was skipped, by its place', () => {
      const objects = (JSON.parse(fixture('stix-bundle.json').toString()) as { objects: unknown[] }).objects;
      const batch = new StixObjectMapper(NOW).map(objects.map((object, i) => ({ object, position: `objects[${i}]` })));
      assert.deepEqual(batch.skipReasons, [
        'objects[13]: AND',
        'objects[17]: pattern_type "snort"',
        'objects[18]: operator LIKE',
      ]);
    });

    it('gives the indicates relations, the one read before its malware included, with names, aliases and categories', async () => {
      const { relations } = await readEveryWay(fixture('stix-bundle.json'));
      assert.deepEqual(relations, [
        // The relationship at objects[1] waited for the malware at objects[19].
        { ref: ind(1), threat: { name: 'Examplebot', aliases: ['ExBot', 'Example Bot'], category: 'malware' } },
        { ref: ind(3), threat: { name: 'Example Group', aliases: ['EG-1'], category: 'group' } },
        { ref: ind(4), threat: { name: 'Example Actor', aliases: [], category: 'threat-actor' } },
        { ref: ind(5), threat: { name: 'Example Campaign', aliases: ['Operation Example'], category: 'campaign' } },
        // Not given: `uses`, a revoked relationship, one to a revoked malware, one to a malware the bundle lacks.
      ]);
    });

    it('reads a bundle given as one string chunk with a byte order mark', async () => {
      const { entries } = await collect(readStixBundle(chunked(`\ufeff${fixture('stix-bundle.json').toString()}`, Infinity, true), NOW));
      assert.equal(entries.length, 15);
    });
  });

  describe('validity', () => {
    const withUntil = (validUntil: unknown) => bundle([{ type: 'indicator', id: ind(1), pattern: "[ipv4-addr:value = '192.0.2.1']", pattern_type: 'stix', valid_until: validUntil }]);

    it('withdraws an indicator whose valid_until is now or earlier, skips one unreadable, and reads one valid a millisecond longer', async () => {
      const withdrawn = [{ value: '192.0.2.1', type: 'ip', position: 'objects[0]' }];
      assert.deepEqual(await readEveryWay(withUntil('2025-06-01T00:00:00.000Z')), { entries: [], skipped: 0, relations: [], withdrawn });
      assert.deepEqual(await readEveryWay(withUntil('not a time')), { entries: [], skipped: 1, relations: [], withdrawn: [] });
      assert.equal((await readEveryWay(withUntil('2025-06-01T00:00:00.001Z'))).entries.length, 1);
      assert.equal((await readEveryWay(withUntil(null))).entries.length, 1);
    });

    it('withdraws every value of a revoked indicator\'s pattern, and skips a revoked one whose pattern it cannot read', async () => {
      const revoked = (pattern: string) => bundle([{ type: 'indicator', id: ind(1), pattern, pattern_type: 'stix', revoked: true, confidence: 85 }]);
      assert.deepEqual(await readEveryWay(revoked("[ipv4-addr:value = '192.0.2.1'] OR [domain-name:value = 'gone.example.com']")), {
        entries: [],
        skipped: 0,
        relations: [],
        withdrawn: [
          { value: '192.0.2.1', type: 'ip', position: 'objects[0]' },
          { value: 'gone.example.com', type: 'domain', position: 'objects[0]' },
        ],
      });
      assert.deepEqual(await readEveryWay(revoked("[ipv4-addr:value LIKE '192.0.2.%']")), { entries: [], skipped: 1, relations: [], withdrawn: [] });
    });

    it('takes `now` from the caller', async () => {
      const late = await collect(readStixBundle(chunked(withUntil('2025-06-01T00:00:00.001Z'), Infinity), NOW + 1));
      assert.deepEqual([late.entries.length, late.skipped, late.withdrawn.length], [0, 0, 1]);
    });
  });

  describe('confidence: the upstream\'s per-indicator risk, by the inverse of our own export\'s mapping', () => {
    const withConfidence = (confidence: unknown) =>
      bundle([{ type: 'indicator', id: ind(1), pattern: "[ipv4-addr:value = '192.0.2.1']", pattern_type: 'stix', ...(confidence === undefined ? {} : { confidence }) }]);
    const cases: Array<[unknown, string | undefined]> = [
      [0, 'none'], [1, 'low'], [15, 'low'], [29, 'low'], [30, 'medium'], [50, 'medium'], [69, 'medium'], [70, 'high'], [85, 'high'], [99, 'high'], [100, 'critical'],
      // No risk of its own: the source's applies.
      [undefined, undefined], [-1, undefined], [101, undefined], ['85', undefined], [null, undefined],
    ];
    for (const [confidence, risk] of cases) {
      it(`confidence ${JSON.stringify(confidence) ?? 'absent'} gives ${risk ?? 'no risk'}`, async () => {
        const [entry] = (await readEveryWay(withConfidence(confidence))).entries;
        assert.deepEqual(entry, { value: '192.0.2.1', type: 'ip', position: 'objects[0]', ref: ind(1), ...(risk === undefined ? {} : { risk }) });
      });
    }
  });

  describe('the bundle around the objects', () => {
    it('reads members in any order, skipping other members whatever they hold', async () => {
      const body = `{"objects":[{"type":"indicator","id":"${ind(1)}","pattern":"[domain-name:value = 'a.example.com']"}],"x_deep":{"a":[1,{"b":"]}\\"[{"}],"c":null},"spec_version":"2.0","n":-1.5e3,"t":true,"type":"bundle","id":"bundle--x"}`;
      assert.deepEqual(await readEveryWay(body), {
        entries: [{ value: 'a.example.com', type: 'domain', position: 'objects[0]', ref: ind(1) }],
        skipped: 0,
        relations: [],
        withdrawn: [],
      });
    });

    it('reads an empty bundle, with or without objects', async () => {
      assert.deepEqual(await readEveryWay('{"type":"bundle","id":"bundle--x","objects":[]}'), { entries: [], skipped: 0, relations: [], withdrawn: [] });
      assert.deepEqual(await readEveryWay(' {"type" : "bundle" , "id":"bundle--x"} \n'), { entries: [], skipped: 0, relations: [], withdrawn: [] });
    });

    it('ignores elements that are not objects and objects of other types, without counting them', async () => {
      const body = bundle([1, 'x', null, [], { type: 'observed-data', id: 'observed-data--1' }, { type: 'indicator', id: ind(2), pattern: "[email-addr:value = 'a@example.com']" }]);
      assert.deepEqual(await readEveryWay(body), { entries: [{ value: 'a@example.com', type: 'email', position: 'objects[5]', ref: ind(2) }], skipped: 0, relations: [], withdrawn: [] });
    });

    it('yields a batch per chunk as the objects complete, not one at the end', async () => {
      const objects = Array.from({ length: 50 }, (_, n) => ({ type: 'indicator', id: ind(n), pattern: `[ipv4-addr:value = '192.0.2.${n}']` }));
      const { batches, entries } = await collect(readStixBundle(chunked(bundle(objects), 512), NOW));
      assert.equal(entries.length, 50);
      assert.ok(batches > 5, `${batches} batches`);
    });
  });

  describe('bodies that are not a usable bundle fail the read', () => {
    const cases: Array<[string, string, string | RegExp]> = [
      ['an empty body', '', 'document: not a STIX bundle: the body is empty'],
      ['an array', '[{"type":"indicator"}]', 'document: not a STIX bundle: the body is not a JSON object'],
      ['another object type', '{"type":"indicator","id":"indicator--1","pattern":"[x:y = \'z\']"}', 'document: not a STIX bundle: "type" is "indicator"'],
      ['no type', '{"id":"bundle--x","objects":[]}', 'document: not a STIX bundle: no "type" member'],
      ['objects not an array', '{"type":"bundle","objects":{"a":1}}', 'document: "objects" is not an array'],
      ['objects twice', '{"type":"bundle","objects":[],"objects":[]}', 'document: "objects" appears twice'],
      ['an element that is not JSON', '{"type":"bundle","objects":[{"type":"indicator"},{"type":indicator}]}', /^objects\[1\]: not valid JSON: /],
      ['a stray comma in objects', '{"type":"bundle","objects":[{"type":"x"},]}', 'objects[1]: an empty element (a stray comma?)'],
      ['a trailing comma after a member', '{"type":"bundle","objects":[],}', 'document: expected a member name, found "}"'],
      ['a body cut short inside an object', '{"type":"bundle","objects":[{"type":"indicator","pattern":"[ipv4', 'objects[0]: the body ends before the bundle does (truncated?)'],
      ['a body cut short between objects', '{"type":"bundle","objects":[{"type":"x"},', 'document: the body ends before the bundle does (truncated?)'],
      ['text after the bundle', '{"type":"bundle","objects":[]} {}', 'document: unexpected text after the end of the bundle'],
    ];
    for (const [name, body, message] of cases) {
      it(name, () => rejectsEveryWay(body, message));
    }
  });
});

describe('readStixBundle › objects it cannot read: skipped and counted, never a failed read', () => {
  const indicator = (n: number, pattern: string, extra: Record<string, unknown> = {}) => ({ type: 'indicator', id: ind(n), pattern, pattern_type: 'stix', ...extra });
  const good = [indicator(1, "[ipv4-addr:value = '192.0.2.1']"), indicator(3, "[domain-name:value = 'after.example.com']")];
  const read = [
    { value: '192.0.2.1', type: 'ip', position: 'objects[0]', ref: ind(1) },
    { value: 'after.example.com', type: 'domain', position: 'objects[2]', ref: ind(3) },
  ];

  it('skips an indicator whose pattern nests 2,000 parentheses, and reads the ones around it', async () => {
    const hostile = indicator(2, `${'('.repeat(2_000)}[ipv4-addr:value = '192.0.2.2']${')'.repeat(2_000)}`);
    assert.deepEqual(await readEveryWay(bundle([good[0], hostile, good[1]])), { entries: read, skipped: 1, relations: [], withdrawn: [] });
    const batch = new StixObjectMapper(NOW).map([good[0], hostile, good[1]].map((object, i) => ({ object, position: `objects[${i}]` })));
    assert.deepEqual(batch.skipReasons, ['objects[1]: pattern nested deeper than 100 levels']);
  });

  it('reads an indicator carrying a custom property nested 50,000 levels deep (past any recursion), in any chunks', async () => {
    const deep = `${'['.repeat(50_000)}${']'.repeat(50_000)}`;
    const body = bundle([good[0], { ...indicator(2, "[ipv4-addr:value = '192.0.2.2']"), x_deep: 'DEEP' }, good[1]]).replace('"DEEP"', deep);
    assert.equal((await readEveryWay(body)).entries.length, 3);
  });

  it('skips an indicator whose pattern_type is nested 100,000 levels deep, saying so', () => {
    const pattern_type = JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`) as unknown;
    const batch = new StixObjectMapper(NOW).map([{ object: indicator(2, "[ipv4-addr:value = '192.0.2.2']", { pattern_type }), position: 'objects[0]' }]);
    assert.deepEqual(batch, { entries: [], skipped: 1, skipReasons: ['objects[0]: pattern_type is not a string'] });
  });

  it('skips an object whose mapping throws, keeps nothing of it, and gives the error as the reason', () => {
    const throwing = {
      type: 'indicator',
      id: ind(2),
      get pattern(): string {
        throw new RangeError('Maximum call stack size exceeded');
      },
    };
    const batch = new StixObjectMapper(NOW).map([good[0], throwing, good[1]].map((object, i) => ({ object, position: `objects[${i}]` })));
    assert.deepEqual(batch, { entries: read, skipped: 1, skipReasons: ['objects[1]: not read: RangeError: Maximum call stack size exceeded'] });
  });

  it('cuts a long reason short', () => {
    const batch = new StixObjectMapper(NOW).map([{ object: indicator(1, `[process:${'n'.repeat(100_000)} = 'x']`), position: 'objects[0]' }]);
    const [reason = ''] = batch.skipReasons ?? [];
    assert.ok(reason.startsWith('objects[0]: object path process:nnn'), reason.slice(0, 100));
    assert.ok(reason.length < 300, `${reason.length} characters`);
  });
});

describe('mapStixObjects and StixObjectMapper', () => {
  const malware = { type: 'malware', id: id('malware', 1), name: 'Examplebot', is_family: true };
  const indicates = (n: number, target: string) => ({ type: 'relationship', id: id('relationship', n), relationship_type: 'indicates', source_ref: ind(n), target_ref: target });

  it('joins a relationship in one group to its target in a later group (as TAXII pages)', async () => {
    const groups = [
      [{ object: indicates(1, malware.id), position: 'page 1 objects[0]' }],
      [{ object: { type: 'indicator', id: ind(1), pattern: "[ipv4-addr:value = '192.0.2.1']" }, position: 'page 2 objects[0]' }],
      [{ object: malware, position: 'page 3 objects[0]' }, { object: indicates(2, malware.id), position: 'page 3 objects[1]' }],
    ];
    const batches: FeedBatch[] = [];
    for await (const batch of mapStixObjects(groups, NOW)) batches.push(batch);
    const threat = { name: 'Examplebot', aliases: [], category: 'malware' };
    assert.deepEqual(batches, [
      { entries: [{ value: '192.0.2.1', type: 'ip', position: 'page 2 objects[0]', ref: ind(1) }], skipped: 0 },
      { entries: [], skipped: 0, relations: [{ ref: ind(1), threat }, { ref: ind(2), threat }] },
    ]);
  });

  it('tells which targets are still missing, forgets those read, and drops those read revoked', () => {
    const mapper = new StixObjectMapper(NOW);
    const other = id('intrusion-set', 7);
    const revoked = id('campaign', 8);
    mapper.map([
      { object: indicates(1, malware.id), position: 'a' },
      { object: indicates(2, malware.id), position: 'b' },
      { object: indicates(3, other), position: 'c' },
      { object: indicates(4, revoked), position: 'd' },
      // Not a threat type, or not from an indicator: never waits.
      { object: indicates(5, id('attack-pattern', 1)), position: 'e' },
      { object: { ...indicates(6, malware.id), source_ref: id('malware', 3) }, position: 'f' },
    ]);
    assert.deepEqual(mapper.unresolvedTargets(), [malware.id, other, revoked]);
    assert.equal(mapper.unresolvedRelations, 4);
    const batch = mapper.map([
      { object: malware, position: 'g' },
      { object: { type: 'campaign', id: revoked, name: 'Gone', revoked: true }, position: 'h' },
    ]);
    assert.equal(batch.relations?.length, 2);
    assert.deepEqual(mapper.unresolvedTargets(), [other]);
    assert.equal(mapper.unresolvedRelations, 1);
    // A relationship to the revoked campaign read later gives nothing and does not wait.
    assert.deepEqual(mapper.map([{ object: indicates(9, revoked), position: 'i' }]), { entries: [], skipped: 0 });
    assert.deepEqual(mapper.unresolvedTargets(), [other]);
  });

  it('gives a threat without a name nothing, and takes a later version of an SDO', () => {
    const mapper = new StixObjectMapper(NOW);
    assert.deepEqual(mapper.map([{ object: { type: 'malware', id: malware.id, name: '  ' }, position: 'a' }, { object: indicates(1, malware.id), position: 'b' }]), {
      entries: [],
      skipped: 0,
    });
    const batch = mapper.map([
      { object: { ...malware, name: 'Examplebot v2', aliases: ['EB'] }, position: 'c' },
      { object: indicates(2, malware.id), position: 'd' },
    ]);
    assert.deepEqual(batch.relations, [{ ref: ind(2), threat: { name: 'Examplebot v2', aliases: ['EB'], category: 'malware' } }]);
  });
});
