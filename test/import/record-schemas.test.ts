// Import record validation: timestamps must be real calendar times in the interface's form (docs/interface.md section 1).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseRecord } from '../../src/import/record-schemas.js';
import { isValidStamp } from '../../src/stix/stix-time.js';

describe('isValidStamp', () => {
  for (const ok of ['2026-01-15 10:00:00', '2024-02-29 23:59:59', '2000-02-29 00:00:00', '1999-12-31 23:59:59']) {
    it(`accepts ${ok}`, () => assert.equal(isValidStamp(ok), true));
  }
  for (const bad of ['2026-02-30 00:00:00', '2025-02-29 00:00:00', '1900-02-29 00:00:00', '2026-13-01 00:00:00', '2026-00-10 00:00:00', '2026-01-01 24:00:00', '2026-01-01 10:60:00', '2026-01-01T10:00:00', '2026-01-01 10:00', ' 2026-01-01 10:00:00']) {
    it(`refuses ${JSON.stringify(bad)}`, () => assert.equal(isValidStamp(bad), false));
  }
});

describe('parseRecord', () => {
  it('fills defaults for optional fields of an indicator', () => {
    const result = parseRecord('indicator', { iid: 1, indicator: '198.51.100.1', type: 'ip', risk: 'low' });
    assert.ok(result.ok);
    assert.deepEqual(result.record.value, { iid: 1, indicator: '198.51.100.1', type: 'ip', risk: 'low', stamp_added: null, stamp_updated: null, stamp_seen: null, retired: null, attributes: {}, properties: {} });
  });

  it('accepts retired as 0 or 1', () => {
    const result = parseRecord('threat', { tid: 1, threat: 'X', category: 'malware', risk: 'low', retired: 1 });
    assert.ok(result.ok && result.record.kind === 'threat' && result.record.value.retired === true);
  });

  it('names the field of a bad value', () => {
    assert.deepEqual(parseRecord('feed', { fid: 0, feed: 'F', organization: 'O' }), { ok: false, reason: 'feed fid: Too small: expected number to be >0' });
  });

  it('explains a link without an owner', () => {
    assert.deepEqual(parseRecord('link', { iid: 1, stamp_linked: '2026-01-01 00:00:00' }), { ok: false, reason: 'link must have iid, stamp_linked and exactly one of fid or tid' });
  });
});
