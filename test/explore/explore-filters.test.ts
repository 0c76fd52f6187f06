// What each explore field means (docs/explore.md, "Fields"): the filter a term becomes, and every
// refusal of a field or value, with where and what.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { containingBlocks, ExploreQueryError, exploreFilter, rangeOf } from '../../src/explore/explore-filters.js';
import { parseIpBlock } from '../../src/sources/normalize-value.js';

const NOW = Date.UTC(2026, 10, 28, 12, 0, 0);
const indicators = (q: string) => exploreFilter('indicators', q, NOW);
const threats = (q: string) => exploreFilter('threats', q, NOW);

function refused(mode: 'indicators' | 'threats', q: string, message: RegExp): void {
  assert.throws(() => exploreFilter(mode, q, NOW), (error: unknown) => error instanceof ExploreQueryError && error.status === 400 && message.test(error.message));
}

describe('explore filters: indicator fields', () => {
  it('an exact value is normalized and looked for under its stored types', () => {
    assert.deepEqual(indicators('ioc=Login.EXAMPLE.com.'), { kind: 'value', values: ['login.example.com', 'Login.EXAMPLE.com.'], types: ['domain', 'hostname'] });
    assert.deepEqual(indicators('value=login.example.com'), { kind: 'value', values: ['login.example.com'], types: ['domain', 'hostname'] });
  });

  it('a defanged value is read as analysts mean it', () => {
    assert.deepEqual(indicators('ioc=login-2002c[.]net'), { kind: 'value', values: ['login-2002c.net'], types: ['domain', 'hostname'] });
    assert.deepEqual(indicators('indicator="hxxps://evil[.]example/a"'), { kind: 'value', values: ['https://evil.example/a'], types: ['url', 'uri'] });
  });

  it('a wildcard is a LIKE pattern, lowercased, with the user\'s own % and _ literal', () => {
    assert.deepEqual(indicators('ioc=*.Example.com'), { kind: 'value-like', like: '%.example.com' });
    assert.deepEqual(indicators('ioc=login*'), { kind: 'value-like', like: 'login%' });
    assert.deepEqual(indicators('ioc="*100%_off*"'), { kind: 'value-like', like: '%100\\%\\_off%' });
    assert.deepEqual(indicators('ioc=a**bcd'), { kind: 'value-like', like: 'a%bcd' });
  });

  it('a bare value searches values', () => {
    assert.deepEqual(indicators('zeus'), { kind: 'value-like', like: '%zeus%' });
    assert.deepEqual(indicators('"zeus*panel"'), { kind: 'value-like', like: 'zeus%panel' });
  });

  it('a block matches what lies inside it; an address itself and every block holding it', () => {
    assert.deepEqual(indicators('ioc=198.51.100.7/24'), { kind: 'inside', range: { lo: '4c6336400', hi: '4c63364ff' } });
    assert.deepEqual(indicators('ioc=2001:db8::/32'), { kind: 'inside', range: { lo: '620010db8000000000000000000000000', hi: '620010db8ffffffffffffffffffffffff' } });
    const address = indicators('ioc=157.59.90.5');
    assert.equal(address.kind, 'value');
    const values = (address as { values: string[] }).values;
    assert.equal(values.length, 33);
    assert.ok(values.includes('157.59.90.5') && values.includes('157.59.90.0/23') && values.includes('0.0.0.0/0'));
    assert.deepEqual((address as { types: readonly string[] }).types, ['ip', 'ipv4', 'cidr']);
  });

  it('blocks containing an address, widest first, as pulls store them', () => {
    const blocks = containingBlocks(parseIpBlock('157.59.90.5')!);
    assert.equal(blocks.length, 32);
    assert.deepEqual([blocks[0], blocks[8], blocks[23], blocks[31]], ['0.0.0.0/0', '157.0.0.0/8', '157.59.90.0/23', '157.59.90.4/31']);
    assert.equal(containingBlocks(parseIpBlock('2001:db8::1')!).length, 128);
    assert.deepEqual(rangeOf(parseIpBlock('10.0.0.1')!), { lo: '40a000001', hi: '40a000001' });
  });

  it('type: a type, its aliases, cidr as blocks', () => {
    assert.deepEqual(indicators('type=domain'), { kind: 'type', types: ['domain', 'hostname'] });
    assert.deepEqual(indicators('type=HOSTNAME'), { kind: 'type', types: ['domain', 'hostname'] });
    assert.deepEqual(indicators('type=ipv4'), { kind: 'type', types: ['ip', 'ipv4', 'cidr'] });
    assert.deepEqual(indicators('type=cidr'), { kind: 'blocks' });
    assert.deepEqual(indicators('type!=url'), { kind: 'not', filter: { kind: 'type', types: ['url', 'uri'] } });
  });

  it('risk: ordered none < unknown < low < medium < high < critical; retired equal only', () => {
    assert.deepEqual(indicators('risk=High'), { kind: 'risk', risks: ['high'] });
    assert.deepEqual(indicators('risk>=high'), { kind: 'risk', risks: ['high', 'critical'] });
    assert.deepEqual(indicators('risk>medium'), { kind: 'risk', risks: ['high', 'critical'] });
    assert.deepEqual(indicators('risk<low'), { kind: 'risk', risks: ['none', 'unknown'] });
    assert.deepEqual(indicators('risk<=unknown'), { kind: 'risk', risks: ['none', 'unknown'] });
    assert.deepEqual(indicators('risk!=retired'), { kind: 'not', filter: { kind: 'risk', risks: ['retired'] } });
  });

  it('stamps: dates, times, ages before now; a date with = is its whole day', () => {
    assert.deepEqual(indicators('seen>7d'), { kind: 'stamp', column: 'stamp_seen', op: '>', at: '2026-11-21 12:00:00' });
    assert.deepEqual(indicators('added<12h'), { kind: 'stamp', column: 'stamp_added', op: '<', at: '2026-11-28 00:00:00' });
    assert.deepEqual(indicators('updated>=30m'), { kind: 'stamp', column: 'stamp_updated', op: '>=', at: '2026-11-28 11:30:00' });
    assert.deepEqual(indicators('added>=2026-01-02'), { kind: 'stamp', column: 'stamp_added', op: '>=', at: '2026-01-02 00:00:00' });
    assert.deepEqual(indicators('retired<"2026-01-02 03:04:05"'), { kind: 'stamp', column: 'stamp_retired', op: '<', at: '2026-01-02 03:04:05' });
    assert.deepEqual(indicators('added=2026-02-28'), {
      kind: 'and',
      filters: [
        { kind: 'stamp', column: 'stamp_added', op: '>=', at: '2026-02-28 00:00:00' },
        { kind: 'stamp', column: 'stamp_added', op: '<', at: '2026-03-01 00:00:00' },
      ],
    });
    assert.deepEqual(indicators('seen="2026-01-02 03:04:05"'), { kind: 'stamp', column: 'stamp_seen', op: '=', at: '2026-01-02 03:04:05' });
  });

  it('retired=true|false is the retired risk or not', () => {
    assert.deepEqual(indicators('retired=true'), { kind: 'risk', risks: ['retired'] });
    assert.deepEqual(indicators('retired=false'), { kind: 'not', filter: { kind: 'risk', risks: ['retired'] } });
    assert.deepEqual(indicators('retired!=false'), { kind: 'risk', risks: ['retired'] });
  });

  it('threat, feed and attributes compare names and values lowercased', () => {
    assert.deepEqual(indicators('threat="Cobalt Strike"'), { kind: 'threat', name: { exact: 'cobalt strike' } });
    assert.deepEqual(indicators('feed=URL*'), { kind: 'feed', name: { like: 'url%' } });
    assert.deepEqual(indicators('attribute.port=443'), { kind: 'attribute', name: 'port', value: { exact: '443' } });
    assert.deepEqual(indicators('attribute=Nginx'), { kind: 'attribute', name: null, value: { exact: 'nginx' } });
    assert.deepEqual(indicators('feed!=abc'), { kind: 'not', filter: { kind: 'feed', name: { exact: 'abc' } } });
  });

  it('and, or and not carry over from the query', () => {
    assert.deepEqual(indicators('type=url and (risk=high or not feed=abc)'), {
      kind: 'and',
      filters: [
        { kind: 'type', types: ['url', 'uri'] },
        { kind: 'or', filters: [{ kind: 'risk', risks: ['high'] }, { kind: 'not', filter: { kind: 'feed', name: { exact: 'abc' } } }] },
      ],
    });
  });
});

describe('explore filters: observations (docs/observations.md)', () => {
  it('sighted is a stamp of its own; sightings and submissions are counters, != the negation of =', () => {
    assert.deepEqual(indicators('sighted>7d'), { kind: 'sighted', op: '>', at: '2026-11-21 12:00:00' });
    assert.deepEqual(indicators('sighted=2026-11-01'), {
      kind: 'and',
      filters: [{ kind: 'sighted', op: '>=', at: '2026-11-01 00:00:00' }, { kind: 'sighted', op: '<', at: '2026-11-02 00:00:00' }],
    });
    assert.deepEqual(indicators('sightings>=3'), { kind: 'count', column: 'sightings', op: '>=', value: 3 });
    assert.deepEqual(indicators('submissions!=0'), { kind: 'not', filter: { kind: 'count', column: 'submissions', op: '=', value: 0 } });
    assert.deepEqual(threats('sighted<2026-01-01'), { kind: 'stamp', column: 'stamp_sighted', op: '<', at: '2026-01-01 00:00:00' });
    assert.deepEqual(threats('sightings>0'), { kind: 'count', column: 'sightings', op: '>', value: 0 });
  });
});

describe('explore filters: threat fields', () => {
  it('each field', () => {
    assert.deepEqual(threats('zeus'), { kind: 'threat', name: { like: '%zeus%' } });
    assert.deepEqual(threats('threat="Cobalt Strike"'), { kind: 'threat', name: { exact: 'cobalt strike' } });
    assert.deepEqual(threats('category=Malware'), { kind: 'category', categories: ['malware'] });
    assert.deepEqual(threats('risk>=high'), { kind: 'risk', risks: ['high', 'critical'] });
    assert.deepEqual(threats('seen>7d'), { kind: 'stamp', column: 'stamp_seen', op: '>', at: '2026-11-21 12:00:00' });
    assert.deepEqual(threats('retired=true'), { kind: 'retired', retired: true });
    assert.deepEqual(threats('retired!=true'), { kind: 'retired', retired: false });
    assert.deepEqual(threats('ttp=t1059'), { kind: 'ttp', technique: 'T1059', subtechniques: true });
    assert.deepEqual(threats('ttp=T1566.001'), { kind: 'ttp', technique: 'T1566.001', subtechniques: false });
    assert.deepEqual(threats('feed="Feodo Tracker"'), { kind: 'feed', name: { exact: 'feodo tracker' } });
  });
});

describe('explore filters: every refusal says where and what', () => {
  const cases: Array<['indicators' | 'threats', string, RegExp]> = [
    ['indicators', 'colour=red', /^q: at 1: unknown field "colour" for indicators \(fields: ioc, indicator, value, type, risk, threat, feed, added, seen, updated, retired, attribute, attribute\.NAME, sighted, sightings, submissions\)$/],
    ['threats', 'type=url', /^q: at 1: unknown field "type" for threats \(fields: threat, category, risk, added, seen, retired, ttp, feed, sighted, sightings\)$/],
    ['indicators', 'sightings>many', /^q: at 1: "sightings" takes a whole number from 0 to 1,000,000,000, not "many"$/],
    ['indicators', 'submissions>=1.5', /^q: at 1: "submissions" takes a whole number from 0 to 1,000,000,000, not "1\.5"$/],
    ['threats', 'sightings=-1', /^q: at 1: "sightings" takes a whole number/],
    ['threats', 'submissions>0', /^q: at 1: unknown field "submissions" for threats/],
    ['indicators', 'sighted>soon', /^q: at 1: "sighted" takes a date/],
    ['indicators', 'risk=hgih', /^q: at 1: risk "hgih" is not one of none, unknown, low, medium, high, critical, retired$/],
    ['indicators', 'risk>retired', /^q: at 1: "risk=retired" takes = and != only$/],
    ['indicators', 'type>url', /^q: at 1: "type" takes = and != only$/],
    ['indicators', 'type=ftp', /^q: at 1: type "ftp" is not one of /],
    ['indicators', 'type=url and seen>yesterday', /^q: at 14: "seen" takes a date \(YYYY-MM-DD\), a time \("YYYY-MM-DD HH:MM:SS"\) or an age \(7d, 12h, 30m\), not "yesterday"$/],
    ['indicators', 'added=2026-02-30', /^q: at 1: "added" takes a date/],
    ['indicators', 'seen=7d', /^q: at 1: an age compares with > or <: "seen>7d" is the last 7d$/],
    ['indicators', 'ioc=*.a', /^q: at 1: narrow the query: a wildcard value needs at least 3 characters in a row besides \* \("\*\.a"\)$/],
    ['indicators', '*', /^q: at 1: narrow the query: a wildcard value needs at least 3 characters/],
    ['indicators', 'ab', /^q: at 1: narrow the query: a wildcard value needs at least 3 characters/],
    ['indicators', 'attribute.=1', /^q: at 1: an attribute field names its attribute/],
    ['threats', 'ttp=execution', /^q: at 1: "ttp" takes an ATT&CK technique id/],
    ['threats', 'retired=maybe', /^q: at 1: "retired" takes true or false for threats, not "maybe"$/],
    ['threats', 'category=mal*', /^q: at 1: "category" takes a category name, not a wildcard$/],
    ['indicators', 'risk=', /^q: at 6: expected a value after "risk="$/],
    ['indicators', '', /^q: the query is empty$/],
  ];
  for (const [mode, q, message] of cases) it(`${mode}: ${JSON.stringify(q)}`, () => refused(mode, q, message));
});
