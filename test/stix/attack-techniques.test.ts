// ATT&CK techniques in a threat's ttps: the id rule, the attack.mitre.org URL, tactic names, and the merge of several threats.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  attackPhaseName,
  attackTechniqueId,
  attackTechniqueUrl,
  mergeTechniqueUses,
  threatTechniques,
} from '../../src/stix/attack-techniques.js';

describe('attackTechniqueId', () => {
  const cases: Array<[unknown, string | undefined]> = [
    ['T1566', 'T1566'],
    ['T1566.001', 'T1566.001'],
    ['t1566.001', 'T1566.001'],
    [' T1110 ', 'T1110'],
    ['T0801', 'T0801'],
    ['T156', undefined],
    ['T15660', undefined],
    ['T1566.01', undefined],
    ['T1566.0001', undefined],
    ['T1566.', undefined],
    ['T1566/001', undefined],
    ['TA0001', undefined],
    ['S0154', undefined],
    ['1566', undefined],
    ['xT1566', undefined],
    ['', undefined],
    [1566, undefined],
    [null, undefined],
    [undefined, undefined],
  ];
  for (const [value, expected] of cases) {
    it(`given ${JSON.stringify(value) ?? 'undefined'} › gives ${expected ?? 'no id'}`, () => {
      assert.equal(attackTechniqueId(value), expected);
    });
  }
});

describe('attackTechniqueUrl', () => {
  it('for a technique › is its page on attack.mitre.org, as ATT&CK STIX data writes it (no trailing slash)', () => {
    assert.equal(attackTechniqueUrl('T1566'), 'https://attack.mitre.org/techniques/T1566');
  });
  it('for a sub-technique › puts the sub-technique number in a path segment of its own', () => {
    assert.equal(attackTechniqueUrl('T1566.001'), 'https://attack.mitre.org/techniques/T1566/001');
  });
});

describe('attackPhaseName', () => {
  const cases: Array<[unknown, string | undefined]> = [
    ['initial-access', 'initial-access'],
    ['Initial Access', 'initial-access'],
    ['initial_access', 'initial-access'],
    ['INITIAL_ACCESS', 'initial-access'],
    ['  Command and Control ', 'command-and-control'],
    ['Command  and\tControl', 'command-and-control'],
    ['defense--evasion', 'defense-evasion'],
    ['Credential-Access', 'credential-access'],
    ['-impact-', undefined],
    ['', undefined],
    ['   ', undefined],
    ['initial access!', undefined],
    ['accès initial', undefined],
    [42, undefined],
    [null, undefined],
  ];
  for (const [value, expected] of cases) {
    it(`given ${JSON.stringify(value)} › gives ${expected ?? 'no phase'}`, () => {
      assert.equal(attackPhaseName(value), expected);
    });
  }
});

describe('threatTechniques', () => {
  it('reads each technique once, in the order first cited, with its first name and all of its tactics, sorted', () => {
    const { techniques, skipped } = threatTechniques([
      { id: 't1078', tactic: 'Persistence' },
      { id: 'T1566.001', tactic: 'initial-access', name: 'Phishing: Spearphishing Attachment' },
      { id: 'T1078', tactic: 'Initial Access', name: 'Valid Accounts' },
      { id: 'T1078', tactic: ['defense_evasion', 'persistence'], name: 'Another name' },
    ]);
    assert.equal(skipped, 0);
    assert.deepEqual(techniques, [
      { technique: 'T1078', name: 'Valid Accounts', tactics: ['defense-evasion', 'initial-access', 'persistence'] },
      { technique: 'T1566.001', name: 'Phishing: Spearphishing Attachment', tactics: ['initial-access'] },
    ]);
  });

  it('takes technique_id when an item has no id, and leaves name and tactics out when blank or missing', () => {
    assert.deepEqual(threatTechniques([{ technique_id: 'T1190', name: '  ', tactic: '' }]).techniques, [
      { technique: 'T1190', name: null, tactics: [] },
    ]);
  });

  it('skips and counts items without a valid technique id, never throwing', () => {
    const { techniques, skipped } = threatTechniques([
      { id: 'T1', name: 'too short' },
      { name: 'no id' },
      { id: 'TA0001', tactic: 'initial-access' },
      'T1566',
      null,
      42,
      { id: 'T1105' },
    ]);
    assert.deepEqual(techniques.map((t) => t.technique), ['T1105']);
    assert.equal(skipped, 6);
  });
});

describe('mergeTechniqueUses', () => {
  it('names the technique as the lowest tid that names it, and joins every tactic', () => {
    const merged = mergeTechniqueUses('T1110', [
      { tid: 9, name: 'Brute Force', tactics: ['credential-access'] },
      { tid: 4, name: null, tactics: ['initial-access'] },
      { tid: 5, name: 'Password Guessing', tactics: ['credential-access'] },
    ]);
    assert.deepEqual(merged, { name: 'Password Guessing', tactics: ['credential-access', 'initial-access'] });
  });

  it('gives the same result in any order of the threats', () => {
    const uses = [
      { tid: 2, name: 'B', tactics: ['execution'] },
      { tid: 1, name: 'A', tactics: ['persistence'] },
    ];
    assert.deepEqual(mergeTechniqueUses('T1053', uses), mergeTechniqueUses('T1053', [...uses].reverse()));
  });

  it('falls back to the technique id when no threat names it', () => {
    assert.deepEqual(mergeTechniqueUses('T1027', [{ tid: 3, name: null, tactics: [] }]), { name: 'T1027', tactics: [] });
  });
});
