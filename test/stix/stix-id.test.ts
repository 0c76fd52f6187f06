// Deterministic STIX ids: UUIDv5 against known values, and ids that follow record identity only.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  stixId,
  stixIdForIdentity,
  stixIdForIndicator,
  stixIdForIndicatorLink,
  stixIdType,
  THREATGATE_STIX_NAMESPACE,
  uuidv5,
} from '../../src/stix/stix-id.js';
import { StixMappingError } from '../../src/stix/stix-mapping-error.js';
import { stixIdForThreat } from '../../src/stix/threat-sdo-type.js';

const DNS_NAMESPACE = '6ba7b810-9dad-11d1-80b4-00c04fd430c8';
const URL_NAMESPACE = '6ba7b811-9dad-11d1-80b4-00c04fd430c8';
const OID_NAMESPACE = '6ba7b812-9dad-11d1-80b4-00c04fd430c8';
const UUID_V5 = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('uuidv5', () => {
  describe('with the RFC 9562 example (www.example.com in the DNS namespace)', () => {
    it('gives 2ed6657d-e927-568b-95e1-2665a8aea6a2', () => {
      assert.equal(uuidv5('www.example.com', DNS_NAMESPACE), '2ed6657d-e927-568b-95e1-2665a8aea6a2');
    });
  });

  describe('with a non-ASCII name', () => {
    it('hashes the name as UTF-8, as other implementations do', () => {
      // Reference values from Python's uuid.uuid5.
      assert.equal(uuidv5('https://example.org/ü', URL_NAMESPACE), '4e935be2-141c-5c1c-ab16-33f53ec57da4');
    });
  });

  describe('with a name longer than any before it, then a short one', () => {
    it('hashes each whole name and only it (reference values from Python)', () => {
      assert.equal(uuidv5(`https://example.org/${'é'.repeat(3000)}`, URL_NAMESPACE), 'bf022220-1515-527a-9a8b-1c408541d41b');
      assert.equal(uuidv5('a', URL_NAMESPACE), 'e1407479-3136-56c0-9908-bb02fb0339e2');
    });
  });

  describe('with an empty name', () => {
    it('still gives the reference value', () => {
      assert.equal(uuidv5('', OID_NAMESPACE), '0a68eb57-c88a-5f34-9e9d-27f85e68af4f');
    });
  });

  describe('with an upper-case namespace', () => {
    it('gives the same UUID as the lower-case one', () => {
      assert.equal(uuidv5('www.example.com', DNS_NAMESPACE.toUpperCase()), '2ed6657d-e927-568b-95e1-2665a8aea6a2');
    });
  });

  describe('for any name', () => {
    it('sets version 5 and the RFC variant', () => {
      for (const name of ['a', 'indicator:1', 'threat:99', '\u{1F600}']) {
        assert.match(uuidv5(name, THREATGATE_STIX_NAMESPACE), UUID_V5);
      }
    });
  });

  describe('with a namespace that is not a UUID', () => {
    it('throws a StixMappingError', () => {
      assert.throws(() => uuidv5('x', 'not-a-uuid'), (error: unknown) =>
        error instanceof StixMappingError && error.code === 'invalid-uuid');
    });
  });
});

describe('stixId', () => {
  describe('with a type and a name', () => {
    it('is the type, two hyphens and the UUIDv5 of the name in the threatgate namespace', () => {
      assert.equal(stixId('indicator', 'indicator:42'), 'indicator--48861e38-3d06-5752-b94e-bc775fa0db15');
    });
  });

  describe('with a type that is not a STIX type', () => {
    it('throws', () => {
      for (const type of ['Indicator', 'in', 'x--y', '-abc', 'abc-']) {
        assert.throws(() => stixId(type, 'n'), StixMappingError, type);
      }
    });
  });
});

describe('stixIdForIndicator', () => {
  describe('called twice with one iid', () => {
    it('gives the same id', () => {
      assert.equal(stixIdForIndicator(7), stixIdForIndicator(7));
    });
  });

  describe('with different iids', () => {
    it('gives different ids', () => {
      assert.notEqual(stixIdForIndicator(7), stixIdForIndicator(8));
    });
  });

  describe('with an iid that is not a non-negative integer', () => {
    it('throws an invalid-record error', () => {
      for (const iid of [-1, 1.5, Number.NaN]) {
        assert.throws(() => stixIdForIndicator(iid), (error: unknown) =>
          error instanceof StixMappingError && error.code === 'invalid-record');
      }
    });
  });
});

describe('stixIdForThreat', () => {
  describe('when the description, risk or name of a threat changes', () => {
    it('keeps the id, which depends on tid and category only', () => {
      assert.equal(stixIdForThreat({ tid: 5, category: 'malware' }), stixIdForThreat({ tid: 5, category: 'Malware ' }));
    });
  });

  describe('when the category moves the threat to another SDO type', () => {
    it('changes the type prefix but keeps the UUID part', () => {
      const asMalware = stixIdForThreat({ tid: 5, category: 'malware' });
      const asGroup = stixIdForThreat({ tid: 5, category: 'apt' });
      assert.match(asMalware, /^malware--/);
      assert.match(asGroup, /^intrusion-set--/);
      assert.equal(asMalware.split('--')[1], asGroup.split('--')[1]);
    });
  });

  describe('for a threat and an indicator with the same number', () => {
    it('gives different UUIDs', () => {
      assert.notEqual(stixIdForThreat({ tid: 5, category: 'malware' }).split('--')[1], stixIdForIndicator(5).split('--')[1]);
    });
  });
});

describe('stixIdForIdentity', () => {
  describe('with the same organization name', () => {
    it('gives the same identity id', () => {
      assert.equal(stixIdForIdentity('Example CERT'), stixIdForIdentity('Example CERT'));
      assert.match(stixIdForIdentity('Example CERT'), /^identity--/);
    });
  });

  describe('with names that differ in case', () => {
    it('treats them as different organizations', () => {
      assert.notEqual(stixIdForIdentity('abuse.ch'), stixIdForIdentity('Abuse.ch'));
    });
  });
});

describe('stixIdForIndicatorLink', () => {
  describe('with the same indicator, threat and target type', () => {
    it('gives the same relationship id', () => {
      assert.equal(stixIdForIndicatorLink(1, 2, 'malware'), stixIdForIndicatorLink(1, 2, 'malware'));
    });
  });

  describe('with the indicator and threat swapped', () => {
    it('gives another id', () => {
      assert.notEqual(stixIdForIndicatorLink(1, 2, 'malware'), stixIdForIndicatorLink(2, 1, 'malware'));
    });
  });
});

describe('stixIdType', () => {
  describe('with a STIX identifier', () => {
    it('returns its type', () => {
      assert.equal(stixIdType(stixIdForIndicator(1)), 'indicator');
    });
  });

  describe('with an identifier of another type than expected', () => {
    it('throws an invalid-reference error', () => {
      assert.throws(() => stixIdType(stixIdForIndicator(1), 'identity'), (error: unknown) =>
        error instanceof StixMappingError && error.code === 'invalid-reference');
    });
  });

  describe('with something that is not an identifier', () => {
    it('throws', () => {
      for (const id of ['', 'identity', 'identity--1234', 'Identity--48861e38-3d06-5752-b94e-bc775fa0db15']) {
        assert.throws(() => stixIdType(id), StixMappingError, id);
      }
    });
  });
});

describe('the ids kept from the last call', () => {
  const invalid = (code: string) => (error: unknown) => error instanceof StixMappingError && error.code === code;

  it('never stand in for a bad input, first or after a good one', () => {
    assert.throws(() => stixId('', 'x'), invalid('invalid-reference'));
    assert.match(stixId('indicator', 'x'), /^indicator--/);
    assert.throws(() => stixId('Not_A_Type', 'x'), invalid('invalid-reference'));
    const id = stixIdForIndicator(41);
    assert.throws(() => stixIdForIndicator(-1), invalid('invalid-record'));
    assert.throws(() => stixIdForIndicatorLink(41, -1, 'malware'), invalid('invalid-record'));
    assert.equal(stixIdForIndicator(41), id);
  });

  it('are the ids made afresh', () => {
    const link = stixIdForIndicatorLink(41, 3, 'malware');
    assert.equal(stixIdForIndicatorLink(41, 3, 'malware'), link);
    assert.notEqual(stixIdForIndicatorLink(41, 3, 'tool'), link);
    assert.equal(stixIdForIndicatorLink(41, 3, 'malware'), stixId('relationship', 'link:41:3:malware'));
    assert.equal(stixIdForIndicator(41), stixId('indicator', 'indicator:41'));
  });

  it('check a remembered id against the type asked for', () => {
    const identity = stixIdForIdentity('Example Labs');
    assert.equal(stixIdType(identity, 'identity'), 'identity');
    assert.throws(() => stixIdType(identity, 'indicator'), invalid('invalid-reference'));
  });
});
