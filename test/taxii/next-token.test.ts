// encodeNext/decodeNext: signed, stateless `next` tokens that carry the position, the filters and the limit.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { BadRequestError } from '../../src/errors.js';
import { decodeNext, encodeNext, type NextPosition } from '../../src/taxii/next-token.js';

const SECRET = 'unit-test-secret';
const SCOPE = 'a5cffbfe-c0ff-4842-a235-cb3a7a040a37/objects';

const POSITION: NextPosition = {
  scope: SCOPE,
  dateAdded: 1_768_471_200_000_042,
  id: 'indicator--1c919955-5fb2-52cf-a046-62414eeced82',
  filters: { addedAfter: 1_768_471_200_000_007, ids: null, types: ['indicator', 'malware'], versions: ['last'], specVersions: ['2.1'] },
  limit: 25,
};

/** A token whose payload is signed with the secret, as a server bug or a stolen secret would make one. */
function signed(payload: unknown, secret = SECRET): string {
  const text = Buffer.from(JSON.stringify(payload)).toString('base64url');
  const signature = createHmac('sha256', secret).update(text).digest().subarray(0, 16).toString('base64url');
  return `${text}.${signature}`;
}

const rejects = (token: string, scope = SCOPE, secret = SECRET) =>
  assert.throws(() => decodeNext(secret, token, scope), (error: unknown) => error instanceof BadRequestError && error.status === 400 && /"next"/.test(error.message));

describe('next tokens', () => {
  describe('a token this server issued', () => {
    it('decodes to the same position and filters', () => {
      assert.deepEqual(decodeNext(SECRET, encodeNext(SECRET, POSITION), SCOPE), POSITION);
    });

    it('keeps null filters null and µs date_added exact', () => {
      const bare: NextPosition = { ...POSITION, dateAdded: 1_768_471_200_999_999, filters: { addedAfter: null, ids: null, types: null, versions: null, specVersions: null } };
      assert.deepEqual(decodeNext(SECRET, encodeNext(SECRET, bare), SCOPE), bare);
    });

    it('keeps the limit of the page it continues', () => {
      assert.equal(decodeNext(SECRET, encodeNext(SECRET, { ...POSITION, limit: 1000 }), SCOPE).limit, 1000);
    });

    it('is URL-safe: no characters a query string must escape', () => {
      assert.match(encodeNext(SECRET, POSITION), /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    });

    it('is deterministic, so two instances sharing the secret issue the same token', () => {
      assert.equal(encodeNext(SECRET, POSITION), encodeNext(SECRET, { ...POSITION }));
    });
  });

  describe('a token issued before tokens carried the limit (eight fields)', () => {
    it('decodes with a null limit, so the walk goes on at the default', () => {
      const { scope, dateAdded, id, filters } = POSITION;
      const old = signed([scope, dateAdded, id, filters.addedAfter, filters.ids, filters.types, filters.versions, filters.specVersions]);
      assert.deepEqual(decodeNext(SECRET, old, SCOPE), { ...POSITION, limit: null });
    });
  });

  describe('is refused with a 400', () => {
    const token = encodeNext(SECRET, POSITION);
    const [payload, signature] = token.split('.') as [string, string];

    it('when another listing (scope) presents it', () => rejects(token, `${SCOPE.split('/')[0]}/manifest`));
    it('when another secret verifies it', () => rejects(token, SCOPE, 'another-secret'));
    it('when a payload character is changed', () => rejects(`${payload.slice(0, 5)}${payload[5] === 'x' ? 'y' : 'x'}${payload.slice(6)}.${signature}`));
    it('when the signature is changed', () => rejects(`${payload}.${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`));
    it('when the signature is cut short', () => rejects(`${payload}.${signature.slice(0, 10)}`));
    it('when there is no signature', () => rejects(payload));
    it('when it starts with the dot', () => rejects(`.${signature}`));
    it('when it is empty', () => rejects(''));
    it('when it is longer than 8 KiB', () => rejects(`${'A'.repeat(9000)}.${signature}`));
    it('when filters from another token are spliced in', () => {
      const other = encodeNext(SECRET, { ...POSITION, filters: { ...POSITION.filters, types: null } });
      rejects(`${other.split('.')[0]}.${signature}`);
    });

    it('when a correctly signed payload is not JSON', () => {
      const text = Buffer.from('{not json').toString('base64url');
      const sig = createHmac('sha256', SECRET).update(text).digest().subarray(0, 16).toString('base64url');
      rejects(`${text}.${sig}`);
    });

    for (const [what, fields] of [
      ['an object instead of a list', { scope: SCOPE }],
      ['too few fields', [SCOPE, 1, 'x']],
      ['a string date_added', [SCOPE, '1', 'x', null, null, null, null, null]],
      ['a numeric id', [SCOPE, 1, 2, null, null, null, null, null]],
      ['a string added_after', [SCOPE, 1, 'x', '2026', null, null, null, null]],
      ['types that are not strings', [SCOPE, 1, 'x', null, null, [1], null, null]],
      ['versions that are not a list', [SCOPE, 1, 'x', null, null, null, 'last', null]],
      ['a zero limit', [SCOPE, 1, 'x', null, null, null, null, null, 0]],
      ['a fractional limit', [SCOPE, 1, 'x', null, null, null, null, null, 1.5]],
      ['a string limit', [SCOPE, 1, 'x', null, null, null, null, null, '10']],
      ['too many fields', [SCOPE, 1, 'x', null, null, null, null, null, 10, 'extra']],
    ] as const) {
      it(`when a correctly signed payload has ${what}`, () => rejects(signed(fields)));
    }
  });
});
