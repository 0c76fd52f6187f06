// Attack-pattern SDOs for ATT&CK techniques, and the relationships of threats to them.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { stixIdForAttackPattern, stixIdForTechniqueUse } from '../../src/stix/stix-id.js';
import { StixMappingError } from '../../src/stix/stix-mapping-error.js';
import { stixIdForThreat } from '../../src/stix/threat-sdo-type.js';
import { techniqueRelationshipType, toStixAttackPattern, toStixTechniqueUse } from '../../src/stix/to-stix-attack-pattern.js';
import { THREATGATE_IDENTITY } from '../../src/stix/to-stix-identity.js';

const CREATED = '2026-01-01T00:00:00.000Z';
const MODIFIED = '2026-02-03T04:05:06.789Z';

describe('stixIdForAttackPattern', () => {
  it('is UUIDv5 of the technique id alone in the threatgate namespace (reference value from Python uuid.uuid5)', () => {
    assert.equal(stixIdForAttackPattern('T1566.001'), 'attack-pattern--d5d1ebab-6fe5-5f21-af60-0a703babf602');
  });
});

describe('stixIdForTechniqueUse', () => {
  it('names the threat, the technique and the threat SDO type (reference value from Python uuid.uuid5)', () => {
    assert.equal(stixIdForTechniqueUse(7, 'malware', 'T1566.001'), 'relationship--16173e35-91a5-5282-91dd-9cc0756f0253');
  });
  it('changes with the threat generation and the technique round', () => {
    assert.equal(stixIdForTechniqueUse(7, 'malware', 'T1566.001', 2, 1), 'relationship--e3cee465-19c0-5388-98b2-f3e6fe7fac43');
    const ids = new Set([
      stixIdForTechniqueUse(7, 'malware', 'T1566.001'),
      stixIdForTechniqueUse(7, 'campaign', 'T1566.001'),
      stixIdForTechniqueUse(7, 'malware', 'T1566.001', 1),
      stixIdForTechniqueUse(7, 'malware', 'T1566.001', 0, 1),
      stixIdForTechniqueUse(8, 'malware', 'T1566.001'),
    ]);
    assert.equal(ids.size, 5);
  });
});

describe('toStixAttackPattern', () => {
  describe('for a sub-technique with a tactic', () => {
    const object = toStixAttackPattern(
      { technique: 'T1566.001', name: 'Phishing: Spearphishing Attachment', tactics: ['initial-access'], created: CREATED },
      { modified: MODIFIED },
    );
    it('writes the properties in a fixed order', () => {
      assert.deepEqual(Object.keys(object), [
        'type', 'spec_version', 'id', 'created_by_ref', 'created', 'modified', 'name', 'external_references', 'kill_chain_phases',
      ]);
    });
    it('references the technique on ATT&CK and its tactic as a mitre-attack kill chain phase', () => {
      assert.deepEqual(object, {
        type: 'attack-pattern',
        spec_version: '2.1',
        id: 'attack-pattern--d5d1ebab-6fe5-5f21-af60-0a703babf602',
        created_by_ref: THREATGATE_IDENTITY.id,
        created: CREATED,
        modified: MODIFIED,
        name: 'Phishing: Spearphishing Attachment',
        external_references: [{ source_name: 'mitre-attack', external_id: 'T1566.001', url: 'https://attack.mitre.org/techniques/T1566/001' }],
        kill_chain_phases: [{ kill_chain_name: 'mitre-attack', phase_name: 'initial-access' }],
      });
    });
  });

  describe('for a technique without a tactic', () => {
    it('leaves kill_chain_phases out', () => {
      const object = toStixAttackPattern({ technique: 'T1110', name: 'T1110', tactics: [], created: CREATED }, { modified: MODIFIED });
      assert.equal('kill_chain_phases' in object, false);
      assert.equal(object.external_references[0]!.url, 'https://attack.mitre.org/techniques/T1110');
    });
  });

  describe('with a modified before created', () => {
    it('raises modified to created', () => {
      const object = toStixAttackPattern({ technique: 'T1110', name: 'Brute Force', tactics: [], created: MODIFIED }, { modified: CREATED });
      assert.equal(object.modified, MODIFIED);
    });
  });
});

describe('techniqueRelationshipType', () => {
  it('is uses from every SDO type that STIX 2.1 section 4 lets use an attack-pattern', () => {
    for (const type of ['malware', 'intrusion-set', 'campaign', 'threat-actor']) assert.equal(techniqueRelationshipType(type), 'uses', type);
  });
  it('is related-to from the other threat SDO types', () => {
    for (const type of ['infrastructure', 'attack-pattern', 'vulnerability']) assert.equal(techniqueRelationshipType(type), 'related-to', type);
  });
});

describe('toStixTechniqueUse', () => {
  const use = { tid: 7, technique: 'T1566.001', generation: 0, round: 0, created: CREATED };

  describe('from a malware threat', () => {
    it('is a uses relationship from the threat object to the technique attack-pattern', () => {
      const sourceRef = stixIdForThreat({ tid: 7, category: 'botnet' });
      assert.deepEqual(toStixTechniqueUse(use, { modified: MODIFIED, sourceRef }), {
        type: 'relationship',
        spec_version: '2.1',
        id: 'relationship--16173e35-91a5-5282-91dd-9cc0756f0253',
        created_by_ref: THREATGATE_IDENTITY.id,
        created: CREATED,
        modified: MODIFIED,
        relationship_type: 'uses',
        source_ref: sourceRef,
        target_ref: 'attack-pattern--d5d1ebab-6fe5-5f21-af60-0a703babf602',
      });
    });
  });

  describe('from each threat category', () => {
    it('uses the SDO type the category maps to, falling back to related-to', () => {
      const expected: Record<string, string> = {
        malware: 'uses', apt: 'uses', phishing: 'uses', other: 'uses', scanner: 'related-to', attack: 'related-to', vulnerability: 'related-to',
      };
      for (const [category, type] of Object.entries(expected)) {
        const sourceRef = stixIdForThreat({ tid: 7, category });
        assert.equal(toStixTechniqueUse(use, { modified: MODIFIED, sourceRef }).relationship_type, type, category);
      }
    });
  });

  describe('with a source that is no STIX id', () => {
    it('throws a StixMappingError', () => {
      assert.throws(() => toStixTechniqueUse(use, { modified: MODIFIED, sourceRef: 'malware-7' }), StixMappingError);
    });
  });
});
