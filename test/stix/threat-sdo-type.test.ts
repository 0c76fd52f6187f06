// Which SDO each threat category becomes, and the vocabulary values that come with it.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Threat } from '../../src/domain.js';
import { stixIdForThreat, threatSdoType } from '../../src/stix/threat-sdo-type.js';
import { toStixThreat } from '../../src/stix/to-stix-threat.js';

const aThreat = (category: string): Threat => ({
  tid: 7, threat: 'Zeus', category, risk: 'high', othernames: [], description: null, notes: null, wikisummary: null,
  wikireference: null, retired: false, stamp_added: '2020-01-01 00:00:00', stamp_updated: null, stamp_seen: null,
  stamp_retired: null, attributes: {}, ttps: [], news: [], comments: [], related: [],
});

describe('toStixThreat', () => {
  describe('for each category', () => {
    const table: Array<[category: string, type: string, vocab?: [property: string, value: string]]> = [
      ['malware', 'malware', ['malware_types', 'unknown']],
      ['ransomware', 'malware', ['malware_types', 'ransomware']],
      ['botnet', 'malware', ['malware_types', 'bot']],
      ['trojan', 'malware', ['malware_types', 'trojan']],
      ['rat', 'malware', ['malware_types', 'remote-access-trojan']],
      ['stealer', 'malware', ['malware_types', 'spyware']],
      ['loader', 'malware', ['malware_types', 'downloader']],
      ['dropper', 'malware', ['malware_types', 'dropper']],
      ['backdoor', 'malware', ['malware_types', 'backdoor']],
      ['worm', 'malware', ['malware_types', 'worm']],
      ['spyware', 'malware', ['malware_types', 'spyware']],
      ['Exploit Kit', 'malware', ['malware_types', 'exploit-kit']],
      ['exploitkit', 'malware', ['malware_types', 'exploit-kit']],
      ['miner', 'malware', ['malware_types', 'resource-exploitation']],
      ['c2', 'malware', ['malware_types', 'unknown']],
      ['apt', 'intrusion-set'],
      ['group', 'intrusion-set'],
      ['actor', 'intrusion-set'],
      ['threat_actor', 'intrusion-set'],
      ['crime', 'intrusion-set'],
      ['phishing', 'campaign'],
      ['spam', 'campaign'],
      ['campaign', 'campaign'],
      ['fraud', 'campaign'],
      ['scanner', 'infrastructure', ['infrastructure_types', 'reconnaissance']],
      ['reconnaissance', 'infrastructure', ['infrastructure_types', 'reconnaissance']],
      ['proxy', 'infrastructure', ['infrastructure_types', 'anonymization']],
      ['attack', 'attack-pattern'],
      ['ddos', 'attack-pattern'],
      ['vulnerability', 'vulnerability'],
      ['general', 'campaign'],
      ['other', 'campaign'],
      ['', 'campaign'],
    ];
    for (const [category, type, vocab] of table) {
      const vocabText = vocab === undefined ? '' : ` with ${vocab[0]} ${vocab[1]}`;
      it(`maps "${category}" to ${type}${vocabText}`, () => {
        const object = toStixThreat(aThreat(category), { modified: '2025-01-01T00:00:00Z' }) as unknown as Record<string, unknown>;
        assert.equal(object.type, type);
        assert.equal(object.id, stixIdForThreat({ tid: 7, category }));
        if (vocab !== undefined) assert.deepEqual(object[vocab[0]], [vocab[1]]);
        if (type === 'malware') assert.equal(object.is_family, true);
      });
    }
  });
});

describe('threatSdoType', () => {
  describe('with spaces, underscores and capitals', () => {
    it('normalizes the category first', () => {
      assert.deepEqual(threatSdoType(' Remote_Access Trojan '), { type: 'malware', malwareType: 'remote-access-trojan' });
    });
  });

  describe('with a name inherited by every object', () => {
    it('falls back to the default instead of reading the prototype', () => {
      assert.equal(threatSdoType('constructor').type, 'campaign');
    });
  });
});
