// TAXII authentication (docs/interface.md section 7.2): HTTP Basic `taxii2:<KEY>`, or `?key=<KEY>` with `accept` in the query.
import type { Request, Response } from 'express';
import type { KeyAuthenticator } from '../auth/authenticate-key.js';
import { BadRequestError, UnauthorizedError } from '../errors.js';
import type { MaybePromise } from '../maybe-promise.js';
import type { Client } from '../plans/plan-rules.js';
import { RequestSlot } from '../request-slot.js';
import { rememberBounded } from '../bounded-map.js';

export const TAXII_USERNAME = 'taxii2';
const CHALLENGE = { 'WWW-Authenticate': 'Basic realm="threatgate"' };

function unauthorized(message: string): UnauthorizedError {
  return new UnauthorizedError(message, CHALLENGE);
}

/**
 * Authorization headers read lately, with the key each gives: a poller sends the same header with
 * every request, and decoding it costs more than a map read. Only headers that give a key are kept
 * (a key still to be checked: the authenticator checks it every time), at most this many, then
 * forgotten all at once; a header longer than any key's is never kept.
 */
const readHeaders = new Map<string, string>();
const MAX_READ_HEADERS = 1_000;
const MAX_KEPT_HEADER_LENGTH = 512;

/** The API key from `Authorization: Basic base64(taxii2:KEY)`; any other shape is a 401 naming it. */
export function keyFromBasic(header: string): string {
  const known = readHeaders.get(header);
  if (known !== undefined) return known;
  const key = decodeBasic(header);
  if (header.length <= MAX_KEPT_HEADER_LENGTH) rememberBounded(readHeaders, MAX_READ_HEADERS, header, key);
  return key;
}

function decodeBasic(header: string): string {
  const match = /^Basic[ ]+([A-Za-z0-9+/=_-]+)[ ]*$/i.exec(header);
  if (!match) throw unauthorized('The Authorization header must be HTTP Basic with username "taxii2" and the API key as password.');
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon === -1) throw unauthorized('The Basic credentials must be "taxii2:<API key>".');
  if (decoded.slice(0, colon) !== TAXII_USERNAME) throw unauthorized('The Basic username must be "taxii2"; the password is the API key.');
  return decoded.slice(colon + 1);
}

/**
 * A tester who types `accept=application/taxii+json;version=2.1` unencoded gets the `+` decoded
 * as a space (HTML form encoding); a media type never has a space there, so it is put back.
 */
export function restorePlus(accept: string): string {
  return accept.replace(/\b(taxii|stix) (json)\b/gi, '$1+$2');
}

/** The Accept value a request negotiates with: its header, or the `accept` query value. */
const accepts = new RequestSlot<string>('accept');

/** The Accept value of a request the authenticator passed (undefined when it sent none). */
export function getAccept(res: Response): string | undefined {
  return accepts.get(res);
}

/**
 * The Accept value the request negotiates with, kept for `getAccept`: the `accept` query value of
 * query-string authentication (a 400 when given twice), else the Accept header.
 */
export function setAcceptOf(req: Request, res: Response): void {
  const query = req.query as Record<string, unknown>;
  if (query.accept !== undefined && typeof query.accept !== 'string') throw new BadRequestError('Parameter "accept" must be given once.');
  accepts.set(res, typeof query.accept === 'string' ? restorePlus(query.accept) : req.headers.accept);
}

/**
 * The request's client from `Authorization: Basic taxii2:KEY`, or else `?key=KEY`; a request with
 * neither is a 401 (`hint` says how to send a key). The exports authenticate this way too, as the
 * firewalls that poll them send Basic.
 */
export function createBasicOrQueryClientResolver(authenticate: KeyAuthenticator, hint: string): (req: Request) => MaybePromise<Client> {
  // At once when the authenticator answers at once; a request without credentials throws its 401 at once.
  return (req) => {
    const query = req.query as Record<string, unknown>;
    const header = req.headers.authorization;
    const given = query.key;
    let key: () => string;
    // Read by the authenticator, so that malformed credentials count as a failed authentication.
    if (header !== undefined) key = () => keyFromBasic(header);
    else if (given !== undefined) {
      key = () => {
        // An ambiguous key is malformed credentials: 401 like any other (docs/interface.md section 1).
        if (typeof given !== 'string') throw unauthorized('Parameter "key" must be given once.');
        return given;
      };
    } else {
      throw unauthorized(`Authentication is required: ${hint}.`);
    }
    return authenticate({ address: req.ip, key }, CHALLENGE);
  };
}

export const TAXII_KEY_HINT = 'HTTP Basic with username "taxii2" and the API key, or ?key=<API key>&accept=<media type>';
