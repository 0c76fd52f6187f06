// Request logging and the request metrics, with the API key redacted from the logged URL (docs/interface.md section 4).
import { unescape } from 'node:querystring';
import type { Request, Response } from 'express';
import type { Metrics } from '../metrics/metrics.js';
import type { Logger } from '../logger.js';
import { RequestSlot } from '../request-slot.js';
import { answeredForStoreOutage } from './store-unavailable.js';

/** Which way a request was answered: by the fast path (http/fast-path.ts) or by Express's stack. */
export type AnsweredBy = 'fast' | 'express';

/** When a watched request began (performance.now()), and how its route is named once it finishes. */
const started = new RequestSlot<number>('request started');
const routeOfSlot = new RequestSlot<(req: Request) => string>('route of request');

/**
 * Query parameters whose values are secrets, by how their names begin, case-insensitively: any name
 * that starts with `key` (`key[]`, `key[0]`, `keyx`: query parsers read some of these as `key`, and
 * a mistyped name still carries a key), and the usual names of other credentials.
 */
const SECRET_PARAMS = /^(key|api_?key|token|password)/i;

/** A name escaped more than once (`k%2565y`) is read as often as it takes, up to this many times. */
const MAX_DECODINGS = 3;

/**
 * The parameter name as a query parser reads it: `+` a space, percent escapes decoded. node's
 * `unescape` keeps a malformed escape and decodes the rest, as the query parsers do, so `k%65y%zz`
 * reads as `key%zz`. Decoded again while it changes, so that no escaping hides a name.
 */
function decodedName(rawName: string): string {
  if (!rawName.includes('%') && !rawName.includes('+')) return rawName;
  let name = rawName.replace(/\+/g, ' ');
  for (let i = 0; i < MAX_DECODINGS && name.includes('%'); i++) {
    const next = unescape(name);
    if (next === name) break;
    name = next;
  }
  return name;
}

/** What a secret parameter's name can begin with, escaped or not (SECRET_PARAMS, or a percent escape). */
const SECRET_FIRST = /[kKaAtTpP%]/;

/** The URL as logged: secret query values replaced, everything else kept for debugging. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q === -1) return url;
  // One pass over the pairs; the URL is copied only when a value is replaced.
  let redacted = '';
  let copied = 0;
  for (let start = q + 1; start <= url.length; ) {
    let end = url.indexOf('&', start);
    if (end === -1) end = url.length;
    if (start < end && SECRET_FIRST.test(url[start]!)) {
      const eq = url.indexOf('=', start);
      const rawName = url.slice(start, eq !== -1 && eq < end ? eq : end);
      if (SECRET_PARAMS.test(decodedName(rawName))) {
        redacted += `${url.slice(copied, start)}${rawName}=[redacted]`;
        copied = end;
      }
    }
    start = end + 1;
  }
  return copied === 0 ? url : redacted + url.slice(copied);
}

/**
 * The path a request came with, without its query: Express keeps the URL as it came in originalUrl
 * (a router's req.path has its mount cut off); a request Express never saw (the fast path) has it in
 * url. For log lines, which then name the same path whichever way the request was answered.
 */
export function requestPath(req: Request): string {
  const url = req.originalUrl ?? req.url;
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

/**
 * The route a request is counted under in the metrics: the template of the route that answered it
 * (`/api/threat.php`, `/taxii2/api/collections/:collectionId/objects`), never the URL, so that keys,
 * ids and made-up paths cannot grow the label set. A request answered before any route was chosen
 * (401, 403, 406 and 429 come from a surface's middleware; 404 of an unknown path) counts as its
 * surface's `/*` (`/api/*`, `/taxii2/*`), or `/*` outside the surfaces.
 *
 * The surface is the first segment of `req.baseUrl`: the routers are mounted at one literal
 * segment each, and a deeper base (a router mounted with a parameter) is cut to that segment.
 * Express matches mount paths case-insensitively and `req.baseUrl` keeps the client's spelling
 * (`/TaXiI2`), so the segment is lower-cased: the mount paths are lower case, and so the label is
 * the mount path whatever the client sent (the route templates are the app's own already).
 */
export function routeLabel(req: Request): string {
  const base = req.baseUrl;
  const cut = base.indexOf('/', 1);
  const surface = (cut === -1 ? base : base.slice(0, cut)).toLowerCase();
  const path = (req.route as { path?: unknown } | undefined)?.path;
  return `${surface}${typeof path === 'string' ? path : '/*'}`;
}

/** The request log and the request metrics, for both ways a request is answered (Express, or the fast path): run by the app's steps (app-steps.ts). */
export interface RequestLog {
  /**
   * Watches one request: when its response finishes, its line is logged and it is counted under the
   * route `routeOf` names then (see routeLabel), both saying which way (`by`) it was answered.
   * Nothing is recorded for a response that never finishes (the client hung up first).
   */
  watch(req: Request, res: Response, routeOf: (req: Request) => string, by: AnsweredBy): void;
}

/**
 * Logs one line per finished request; headers (Authorization among them) are never logged.
 * `keyIdOf` names the API key the request was served for (null without one): who the client is
 * belongs to the surfaces' authentication, which builds on this folder, not the other way round.
 * With `metrics`, each request is also counted there (by route template, method and status).
 */
export function createRequestLog(logger: Logger, keyIdOf: (res: Response) => string | null, metrics?: Metrics): RequestLog {
  // One listener per way a request is answered, with what it needs in the response's slots: no closure per request.
  function finished(res: Response, by: AnsweredBy) {
    const req = res.req;
    // Milliseconds to the microsecond.
    const ms = Math.round((performance.now() - started.get(res)!) * 1000) / 1000;
    if (metrics) {
      metrics.request(routeOfSlot.get(res)!(req), req.method, res.statusCode, ms / 1000, by);
      if (answeredForStoreOutage(res)) metrics.storeError();
    }
    logger.info('request', {
      method: req.method,
      // As requestPath reads it, with the query (its secrets redacted).
      url: redactUrl(req.originalUrl ?? req.url),
      status: res.statusCode,
      ms,
      client: keyIdOf(res),
      ip: req.ip,
      path: by,
    });
  }
  function finishedFast(this: Response) {
    finished(this, 'fast');
  }
  function finishedExpress(this: Response) {
    finished(this, 'express');
  }
  return {
    watch(_req, res, routeOf, by) {
      started.set(res, performance.now());
      routeOfSlot.set(res, routeOf);
      res.on('finish', by === 'fast' ? finishedFast : finishedExpress);
    },
  };
}
