// The version hash of a serialized STIX object: blind to when a version was made, to nothing else.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { versionHash } from '../../src/stix/project-records.js';
import { THREATGATE_IDENTITY, toStixIndicator, toStixThreat } from '../../src/stix/index.js';
import type { Indicator, Threat } from '../../src/domain.js';

const indicator = (overrides: Partial<Indicator> = {}): Indicator => ({
  iid: 7,
  indicator: '198.51.100.7',
  type: 'ip',
  risk: 'high',
  stamp_added: '2026-01-02 03:04:05',
  stamp_updated: null,
  stamp_seen: null,
  retired: null,
  attributes: {},
  properties: {},
  ...overrides,
});

const hashOf = (value: Indicator, modified: string): string =>
  versionHash('indicator', JSON.stringify(toStixIndicator(value, { modified, createdByRef: THREATGATE_IDENTITY.id })));

describe('versionHash', () => {
  it('ignores modified', () => {
    assert.equal(hashOf(indicator(), '2026-05-01T00:00:00.000Z'), hashOf(indicator(), '2026-06-01T00:00:00.000Z'));
  });

  it("ignores a retired indicator's valid_until, which follows modified", () => {
    const retired = indicator({ retired: true });
    const a = toStixIndicator(retired, { modified: '2026-05-01T00:00:00.000Z', createdByRef: THREATGATE_IDENTITY.id });
    const b = toStixIndicator(retired, { modified: '2026-06-01T00:00:00.000Z', createdByRef: THREATGATE_IDENTITY.id });
    assert.notEqual(a.valid_until, b.valid_until);
    assert.equal(versionHash('indicator', JSON.stringify(a)), versionHash('indicator', JSON.stringify(b)));
  });

  it('sees every other change: risk, retirement, value', () => {
    const at = '2026-05-01T00:00:00.000Z';
    const base = hashOf(indicator(), at);
    assert.notEqual(hashOf(indicator({ risk: 'low' }), at), base);
    assert.notEqual(hashOf(indicator({ retired: true }), at), base);
    assert.notEqual(hashOf(indicator({ indicator: '198.51.100.8' }), at), base);
  });

  it('is not fooled by imported text that looks like a modified member', () => {
    const at = '2026-05-01T00:00:00.000Z';
    const tricky = indicator({ type: 'domain', indicator: 'x.example', attributes: { modified: ['a'] } });
    const other = indicator({ type: 'domain', indicator: 'x.example', attributes: { modified: ['b'] } });
    assert.notEqual(hashOf(tricky, at), hashOf(other, at));
    const threat = (description: string): Threat => ({
      tid: 3, threat: 'Nimbus', category: 'malware', risk: 'high', othernames: [], description, notes: null, wikisummary: null,
      wikireference: null, retired: null, stamp_added: null, stamp_updated: null, stamp_seen: null, stamp_retired: null,
      attributes: {}, ttps: [], news: [], comments: [], related: [],
    });
    const hashThreat = (description: string) => versionHash('malware', JSON.stringify(toStixThreat(threat(description), { modified: at })));
    assert.notEqual(hashThreat(',"modified":"2026-01-01T00:00:00.000Z"'), hashThreat(',"modified":"2027-01-01T00:00:00.000Z"'));
  });
});
