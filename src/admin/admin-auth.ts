// The admin surface's authentication (docs/interface.md section 13): an admin key as the HTTP Basic password of user `admin`, or as a Bearer token; never `?key=`.
import type { RequestHandler, Response } from 'express';
import type { AdminAuthenticator, AdminKey } from '../auth/authenticate-key.js';
import { BadRequestError, UnauthorizedError } from '../errors.js';
import { RequestSlot } from '../request-slot.js';

export const ADMIN_USERNAME = 'admin';
const CHALLENGE = { 'WWW-Authenticate': 'Basic realm="threatgate admin"' };
const HOW = `HTTP Basic with username "${ADMIN_USERNAME}" and the admin key as password, or "Authorization: Bearer <admin key>"`;

function unauthorized(message: string): UnauthorizedError {
  return new UnauthorizedError(message, CHALLENGE);
}

/**
 * The key an `Authorization` header carries: Basic `admin:KEY` (RFC 7617) or Bearer `KEY` (RFC 6750
 * section 2.1); any other shape, or another Basic user, is a 401 naming what is expected.
 */
export function adminKeyFrom(header: string): string {
  const bearer = /^Bearer[ ]+([A-Za-z0-9._~+/-]+=*)[ ]*$/i.exec(header);
  if (bearer) return bearer[1]!;
  const basic = /^Basic[ ]+([A-Za-z0-9+/=_-]+)[ ]*$/i.exec(header);
  if (!basic) throw unauthorized(`The Authorization header must be ${HOW}.`);
  const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon === -1) throw unauthorized(`The Basic credentials must be "${ADMIN_USERNAME}:<admin key>".`);
  if (decoded.slice(0, colon) !== ADMIN_USERNAME) throw unauthorized(`The Basic username must be "${ADMIN_USERNAME}"; the password is the admin key.`);
  return decoded.slice(colon + 1);
}

/** The admin key each request was served for, for the request log (keyed by the response, as request-client.ts keys clients). */
const adminKeys = new RequestSlot<AdminKey>('admin key');

export function findAdminKey(res: Response): AdminKey | undefined {
  return adminKeys.get(res);
}

/** The admin key of a request past authentication; reading it earlier is a mistake in the route table. */
export function getAdminKey(res: Response): AdminKey {
  const key = adminKeys.get(res);
  if (!key) throw new Error('the admin key was read before authentication resolved it');
  return key;
}

/**
 * Resolves the request's admin key. A `key` query parameter is refused before anything else, and
 * its value never read: a URL ends up in access logs, proxies and browser history, where a key
 * that opens the operator's surface must not. Malformed credentials and another Basic user are
 * read inside the authenticator, so they count as failed authentications as a wrong key does;
 * a request with no credentials at all is a 401 with the challenge and counts as none.
 */
export function createAdminKeyAuthenticator(authenticate: AdminAuthenticator): RequestHandler {
  return async (req, res, next) => {
    if ((req.query as Record<string, unknown>).key !== undefined) {
      throw new BadRequestError(`Parameter "key" is not accepted here: a URL ends up in logs and browser history. Send the admin key as ${HOW}.`);
    }
    const header = req.headers.authorization;
    if (header === undefined) throw unauthorized(`Authentication is required: ${HOW}.`);
    adminKeys.set(res, await authenticate({ address: req.ip, key: () => adminKeyFrom(header) }, CHALLENGE));
    next();
  };
}
