// The security headers of every response (helmet's), worked out once at start-up rather than per request.
import type { RequestHandler } from 'express';
import helmet from 'helmet';
import { HeaderList } from './header-list.js';

/** A header to set (a value) or to remove (null), in the order helmet gives them. */
type HeaderStep = readonly [name: string, value: string | null];

/** A JSON API: no scripts, frames or embedding; helmet's HTML-oriented defaults are tightened. */
export const API_HELMET_OPTIONS = {
  contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
  crossOriginResourcePolicy: { policy: 'cross-origin' },
  referrerPolicy: { policy: 'no-referrer' },
  strictTransportSecurity: false,
} as const satisfies Parameters<typeof helmet>[0];

/**
 * What a helmet middleware does to a response, recorded by running it once against a recorder.
 * Every directive above is a constant (no nonce, no function of the request), so helmet writes the
 * same headers on every response; it is asked once, and each response gets its answer.
 */
function recordSteps(middleware: RequestHandler): readonly HeaderStep[] {
  const steps: HeaderStep[] = [];
  const recorder = {
    setHeader: (name: string, value: unknown) => void steps.push([name, String(value)]),
    removeHeader: (name: string) => void steps.push([name, null]),
  };
  let finished = false;
  middleware({} as never, recorder as never, (error?: unknown) => {
    if (error !== undefined) throw error instanceof Error ? error : new Error(String(error));
    finished = true;
  });
  // A middleware that answered later would depend on the request: then it cannot be recorded.
  if (!finished) throw new Error('helmet did not finish at once: its headers cannot be worked out ahead of requests');
  return steps;
}

/** The response side a header step needs: node's ServerResponse has both. */
export interface HeaderTarget {
  setHeader(name: string, value: string): unknown;
  removeHeader(name: string): void;
}

export interface SecurityHeaders {
  /** Sets the headers on a response: Strict-Transport-Security too when `secure` (an HTTPS request). */
  apply(res: HeaderTarget, secure: boolean): void;
  /** A new list holding what `apply` sets, for headers gathered before a response is written (http/header-list.ts). */
  list(secure: boolean): HeaderList;
  /** The same, as the app's middleware: `req.secure` decides. */
  middleware: RequestHandler;
}

/**
 * helmet's headers for a JSON API, and Strict-Transport-Security (helmet's default policy) on
 * responses to HTTPS requests only: over plain HTTP browsers ignore it (RFC 6797 sections 7.2,
 * 8.1), and sending it there suggests a protection that is not in place. `req.secure` is true for a
 * TLS connection, or, behind a proxy that terminates TLS, when `X-Forwarded-Proto: https` comes from
 * a peer that `trustProxy` trusts; with `trustProxy` false (the default) that header is ignored,
 * since any client could send it.
 */
export function createSecurityHeaders(): SecurityHeaders {
  const plain = recordSteps(helmet(API_HELMET_OPTIONS));
  const secure = [...plain, ...recordSteps(helmet.strictTransportSecurity())];
  const apply = (res: HeaderTarget, overHttps: boolean) => {
    for (const [name, value] of overHttps ? secure : plain) {
      if (value === null) res.removeHeader(name);
      else res.setHeader(name, value);
    }
  };
  const lists = [false, true].map((overHttps) => {
    const list = new HeaderList();
    apply(list, overHttps);
    return list;
  });
  return {
    apply,
    list: (overHttps) => new HeaderList(lists[overHttps ? 1 : 0]),
    middleware: (req, res, next) => {
      apply(res, req.secure);
      next();
    },
  };
}
