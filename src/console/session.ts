// The console's sessions (docs/interface.md section 14): which request is signed in, the redirect to the login page, and the checks every form post passes.
import type { Request, RequestHandler, Response } from 'express';
import { ForbiddenError } from '../errors.js';
import type { Store } from '../store/contract/store.js';
import { CONSOLE_PATHS, CONSOLE_ROOT, type PageContext } from './console-deps.js';
import { CSRF_FIELD, csrfToken, csrfTokenMatches, sessionIdFromCookies, sessionIdHash } from './session-cookie.js';

/** A signed-in request's session: its id (for the CSRF token and logout) and its admin key's id and label. */
export interface SignedIn {
  sid: string;
  keyId: string;
  label: string | null;
}

export function signedInOf(res: Response): SignedIn | undefined {
  return res.locals.session as SignedIn | undefined;
}

/** The console's sessions: the secret that signs them, and the middleware that reads and guards them. */
export interface ConsoleSessions {
  /** The store's console secret, read once (every instance shares it). */
  secret(): Promise<string>;
  /** Finds the request's session, if any, for every console route (res.locals.session); a bad cookie is no session. */
  read: RequestHandler;
  /** Past this, a request is signed in (res.locals.page is set); otherwise a 303 to the login page. */
  require: RequestHandler;
  /** Every POST past the session: its Origin is this console's own, and its `_csrf` the session's token; else a 403 and nothing done. */
  checkForm: RequestHandler;
}

export function createConsoleSessions(store: Store, now: () => number): ConsoleSessions {
  let secret: Promise<string> | undefined;
  const readSecret = (): Promise<string> => {
    // A failed read (the database away) is not kept: the next request asks again.
    secret ??= store.consoleSecret().catch((error: unknown) => {
      secret = undefined;
      throw error;
    });
    return secret;
  };

  const read: RequestHandler = async (req, res, next) => {
    const sid = sessionIdFromCookies(req.headers.cookie, await readSecret());
    const session = sid === undefined ? undefined : await store.findConsoleSession(sessionIdHash(sid), now());
    if (sid !== undefined && session !== undefined) res.locals.session = { sid, keyId: session.keyId, label: session.label } satisfies SignedIn;
    next();
  };

  const require: RequestHandler = async (req, res, next) => {
    const session = signedInOf(res);
    if (session === undefined) {
      // Only a page a GET asked for is worth coming back to; a form posted with an ended session is not re-sent.
      const back = req.method === 'GET' ? consolePath(req.originalUrl) : undefined;
      res.redirect(303, back === undefined || back === CONSOLE_PATHS.feeds ? CONSOLE_PATHS.login : `${CONSOLE_PATHS.login}?next=${encodeURIComponent(back)}`);
      return;
    }
    res.locals.page = { csrf: csrfToken(session.sid, await readSecret()), keyId: session.keyId, keyLabel: session.label, path: pathOf(req.originalUrl) } satisfies PageContext;
    next();
  };

  const checkForm: RequestHandler = async (req, res, next) => {
    if (req.method === 'GET' || req.method === 'HEAD') return next();
    assertSameOrigin(req);
    const given = (req.body as Record<string, unknown> | undefined)?.[CSRF_FIELD];
    if (typeof given !== 'string' || given === '') {
      throw new ForbiddenError(`The form was refused: it carried no CSRF token (field ${CSRF_FIELD}). Nothing was changed; reload the page and submit the form again.`);
    }
    if (!csrfTokenMatches(given, signedInOf(res)!.sid, await readSecret())) {
      throw new ForbiddenError('The form was refused: its CSRF token does not belong to this session. Nothing was changed; reload the page and submit the form again.');
    }
    next();
  };

  return { secret: readSecret, read, require, checkForm };
}

/** The origin the request was made to: its scheme (HTTPS behind a trusted proxy too) and host with port. */
export function ownOrigin(req: Request): string {
  return `${req.protocol}://${req.host}`.toLowerCase();
}

/**
 * A form post must say it comes from this console's own origin (RFC 6454 section 7, the `Origin`
 * header, which browsers send with every POST): a post another site makes is refused even if the
 * browser sent the session cookie. Its absence is refused too: the post cannot then be told apart
 * from a forged one.
 */
export function assertSameOrigin(req: Request): void {
  const origin = req.headers.origin;
  if (origin === undefined || origin === '') {
    throw new ForbiddenError('The form was refused: the request carried no Origin header, so it cannot be told apart from a post made by another site. Nothing was changed.');
  }
  const own = ownOrigin(req);
  if (origin.toLowerCase() !== own) throw new ForbiddenError(`The form was refused: it was posted from ${origin}, not from this console (${own}). Nothing was changed.`);
}

function pathOf(url: string): string {
  return new URL(url, 'http://console.invalid').pathname;
}

/**
 * `next` for a login: a path (and query) of the console, normalized (no `..` leaves it), or
 * undefined for anything else: another origin, another surface, a scheme-relative `//host`.
 */
export function consolePath(text: unknown): string | undefined {
  if (typeof text !== 'string' || !text.startsWith('/') || text.startsWith('//') || text.includes('\\') || text.length > 2048) return undefined;
  let url: URL;
  try {
    url = new URL(text, 'http://console.invalid');
  } catch {
    return undefined;
  }
  if (url.origin !== 'http://console.invalid') return undefined;
  if (url.pathname !== CONSOLE_ROOT && !url.pathname.startsWith(`${CONSOLE_ROOT}/`)) return undefined;
  if (url.pathname.startsWith(CONSOLE_PATHS.login) || url.pathname.startsWith(CONSOLE_PATHS.logout)) return undefined;
  return `${url.pathname}${url.search}`;
}
