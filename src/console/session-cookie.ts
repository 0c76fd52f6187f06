// The console's session cookie and CSRF token (docs/interface.md section 14): a random session id signed with the store's secret (HMAC-SHA256).
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { parseCookie, stringifySetCookie } from 'cookie';
import { CONSOLE_ROOT } from './console-deps.js';

export const SESSION_COOKIE = 'tg_console';

/** The name of the hidden field that carries a form's CSRF token; the session checks it on every POST but the login. */
export const CSRF_FIELD = '_csrf';

/** 32 random bytes, base64url: 43 characters, 256 bits, as API keys are. */
const SID_BYTES = 32;
const SID_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export function newSessionId(): string {
  return randomBytes(SID_BYTES).toString('base64url');
}

/** What the store keeps of a session id: its SHA-256, so a copy of the table opens no session. */
export function sessionIdHash(sid: string): string {
  return createHash('sha256').update(sid, 'utf8').digest('hex');
}

/** The cookie's and the token's MACs are of different messages, so neither can stand in for the other. */
function mac(secret: string, purpose: 'session' | 'csrf', sid: string): string {
  return createHmac('sha256', secret).update(`${purpose}\n${sid}`, 'utf8').digest('base64url');
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}

/** The cookie's value: `SID.MAC`. */
export function signedSessionId(sid: string, secret: string): string {
  return `${sid}.${mac(secret, 'session', sid)}`;
}

/** The session id a `Cookie` header's `tg_console` carries when its signature is good; undefined for none, a malformed or a forged one. */
export function sessionIdFromCookies(header: string | undefined, secret: string): string | undefined {
  if (header === undefined) return undefined;
  const value = parseCookie(header)[SESSION_COOKIE];
  if (value === undefined) return undefined;
  const dot = value.indexOf('.');
  const sid = value.slice(0, dot);
  if (dot < 0 || !SID_SHAPE.test(sid)) return undefined;
  return sameText(value.slice(dot + 1), mac(secret, 'session', sid)) ? sid : undefined;
}

/** The session's CSRF token: derived from its id, so it needs no storage and changes with every session. */
export function csrfToken(sid: string, secret: string): string {
  return mac(secret, 'csrf', sid);
}

export function csrfTokenMatches(given: string, sid: string, secret: string): boolean {
  return sameText(given, csrfToken(sid, secret));
}

/**
 * `Set-Cookie` for a session: HttpOnly (no script reads it), SameSite=Strict (no other site's
 * request carries it), Path=/console (no other surface receives it), Secure when the request came
 * over HTTPS, Max-Age the session's life. `maxAgeSeconds` 0 clears it (logout).
 */
export function sessionSetCookie(value: string, options: { secure: boolean; maxAgeSeconds: number }): string {
  return stringifySetCookie(SESSION_COOKIE, value, {
    httpOnly: true,
    sameSite: 'strict',
    path: CONSOLE_ROOT,
    secure: options.secure,
    maxAge: options.maxAgeSeconds,
  });
}
