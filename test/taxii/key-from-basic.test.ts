// keyFromBasic: the API key from `Authorization: Basic base64(taxii2:KEY)` (docs/interface.md section 7.2, RFC 7617), table-driven.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isWellFormedKey } from '../../src/auth/key-secret.js';
import { UnauthorizedError } from '../../src/errors.js';
import { keyFromBasic, TAXII_USERNAME } from '../../src/taxii/taxii-auth.js';

/** A key as `keys create` makes them: 32 random bytes, base64url. */
const KEY = 'q3Vx8mZ0T1kLw9Rb2YpNc7Hs4Ud6Ef5Gj0Aa1Bb2Cc3';

const b64 = (credentials: string) => Buffer.from(credentials, 'utf8').toString('base64');

const NOT_BASIC = 'The Authorization header must be HTTP Basic with username "taxii2" and the API key as password.';
const NO_COLON = 'The Basic credentials must be "taxii2:<API key>".';
const WRONG_USER = 'The Basic username must be "taxii2"; the password is the API key.';

const ACCEPTED: [condition: string, header: string, key: string][] = [
  ['Basic taxii2:KEY', `Basic ${b64(`taxii2:${KEY}`)}`, KEY],
  ['the scheme in lower case (RFC 9110 section 11.1)', `basic ${b64(`taxii2:${KEY}`)}`, KEY],
  ['the scheme in upper case', `BASIC ${b64(`taxii2:${KEY}`)}`, KEY],
  ['several spaces after the scheme', `Basic   ${b64(`taxii2:${KEY}`)}`, KEY],
  ['trailing spaces', `Basic ${b64(`taxii2:${KEY}`)}  `, KEY],
  ['a password holding a colon (RFC 7617 section 2: split at the first)', `Basic ${b64(`taxii2:${KEY}:extra`)}`, `${KEY}:extra`],
  ['a short password', `Basic ${b64('taxii2:x')}`, 'x'],
];

const REASONS = new Map([
  [NOT_BASIC, 'saying it is not HTTP Basic'],
  [NO_COLON, 'saying the credentials must be taxii2:<API key>'],
  [WRONG_USER, 'saying the username must be taxii2'],
]);

/** Every refusal is a 401 with the Basic challenge; the message tells the shape that was expected. */
const REFUSED: [condition: string, header: string, message: string][] = [
  ['an empty header', '', NOT_BASIC],
  ['a Bearer token', `Bearer ${KEY}`, NOT_BASIC],
  ['a Digest header', 'Digest username="taxii2", realm="threatgate"', NOT_BASIC],
  ['the scheme alone', 'Basic', NOT_BASIC],
  ['the scheme and a space', 'Basic ', NOT_BASIC],
  ['no space after the scheme', `Basic${b64(`taxii2:${KEY}`)}`, NOT_BASIC],
  ['a tab after the scheme', `Basic\t${b64(`taxii2:${KEY}`)}`, NOT_BASIC],
  ['leading space before the scheme', ` Basic ${b64(`taxii2:${KEY}`)}`, NOT_BASIC],
  ['characters outside base64', 'Basic !!!not-base64!!!', NOT_BASIC],
  ['two tokens', `Basic ${b64('taxii2:')} ${KEY}`, NOT_BASIC],
  ['credentials sent unencoded', `Basic taxii2:${KEY}`, NOT_BASIC],
  ['the key alone, without a colon', `Basic ${b64(KEY)}`, NO_COLON],
  ['truncated base64 that decodes to no colon', 'Basic dGF4aWky', NO_COLON],
  ['padding only', 'Basic ====', NO_COLON],
  ['another username', `Basic ${b64(`admin:${KEY}`)}`, WRONG_USER],
  ['the username in upper case', `Basic ${b64(`TAXII2:${KEY}`)}`, WRONG_USER],
  ['an empty username', `Basic ${b64(`:${KEY}`)}`, WRONG_USER],
  ['username and key swapped', `Basic ${b64(`${KEY}:taxii2`)}`, WRONG_USER],
  ['a space before the username', `Basic ${b64(` taxii2:${KEY}`)}`, WRONG_USER],
  ['a space after the username', `Basic ${b64(`taxii2 :${KEY}`)}`, WRONG_USER],
];

describe('keyFromBasic', () => {
  it('expects the fixed username taxii2', () => {
    assert.equal(TAXII_USERNAME, 'taxii2');
  });

  describe('with well-formed Basic credentials', () => {
    for (const [condition, header, key] of ACCEPTED) {
      it(`${condition} › is the password, ${JSON.stringify(key.length > 20 ? `${key.slice(0, 12)}...` : key)}`, () => {
        assert.equal(keyFromBasic(header), key);
      });
    }
  });

  describe('with an empty password (Basic taxii2:)', () => {
    it('is the empty key, which the key check then refuses as malformed', () => {
      assert.equal(keyFromBasic(`Basic ${b64('taxii2:')}`), '');
      assert.equal(isWellFormedKey(''), false);
    });
  });

  describe('with anything else', () => {
    for (const [condition, header, message] of REFUSED) {
      it(`${condition} › throws 401 with the Basic challenge, ${REASONS.get(message)}`, () => {
        assert.throws(
          () => keyFromBasic(header),
          (error: unknown) => {
            assert.ok(error instanceof UnauthorizedError);
            assert.equal(error.status, 401);
            assert.equal(error.code, 'unauthorized');
            assert.deepEqual(error.headers, { 'WWW-Authenticate': 'Basic realm="threatgate"' });
            assert.equal(error.message, message);
            // The message reaches the client and the log: the key sent must not be in it.
            assert.ok(!error.message.includes(KEY));
            return true;
          },
        );
      });
    }
  });
});
