// The fast path (issue 32): a GET or HEAD whose answer is already known is answered on node's request,
// before Express, through the surfaces' own checks and handlers; anything else goes to Express untouched.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ErrorRequestHandler, Express, Request, Response } from 'express';
import type { MaybePromise } from '../maybe-promise.js';
import { deferHeaders, takeDeferredHeaders, type HeaderList, type HeaderSink } from './header-list.js';
import { RequestSlot } from '../request-slot.js';
import type { RequestLog } from './request-log.js';
import type { SecurityHeaders } from './security-headers.js';
import { rememberBounded } from '../bounded-map.js';

/** A route's path parameters, as the request spells them (the fast path takes no percent-escape). */
export type RouteParams = Readonly<Record<string, string>>;

/** One route of a surface's table that the fast path may answer. */
export interface HotRoute {
  /** Its path under the surface's mount, as the surface's route table writes it (`/api/collections/:collectionId`). */
  path: string;
  /**
   * Whether the answer is known now: kept in a response cache for the current data version, or
   * fixed at start-up. It only reads (no hit, miss or limit is counted); a throw means not sure.
   */
  known(req: Request, params: RouteParams): boolean | Promise<boolean>;
  /**
   * The checks the surface's router runs before it chooses a route (key, rate limits, plan, media
   * type), setting the headers they add on `headers` (the response, or the list standing in for it).
   * At once when all they read is in memory (a refusal thrown), else a promise (a refusal rejected).
   */
  admit(req: Request, res: Response, params: RouteParams, headers: HeaderSink): MaybePromise<void>;
  /** The route's handler. */
  handle(req: Request, res: Response, params: RouteParams): MaybePromise<void>;
  /**
   * The handler answers through sendBytes (http/send-json.ts), or throws: then the response's
   * headers wait in a list until sendBytes writes them with the body in one writeHead, rather than
   * being set on the response one by one. A handler that writes any other way must leave this out.
   */
  sendsBytes?: boolean;
}

/** A surface's share of the fast path: the routes it may answer there, and how it renders an error. */
export interface HotSurface {
  /** Where the app mounts the surface (`/api`), in lower case as the app writes it. */
  mount: string;
  routes: readonly HotRoute[];
  /** The surface's own error renderer: an error of `serve` is answered as the surface's router answers it. */
  renderError: ErrorRequestHandler;
}

/** A segment of a route's path: a literal, or a parameter (`:name`) and the literal that may follow it in the segment (`:name.txt`). */
type Segment = { literal: string } | { param: string; suffix: string };

function segmentOf(text: string): Segment {
  const param = /^:([A-Za-z_$][\w$]*)(.*)$/.exec(text);
  return param ? { param: param[1]!, suffix: param[2]! } : { literal: text };
}

/**
 * A segment as a parameter reads it, or undefined. A value that holds the first character of the
 * literal after it (`a.b.txt` for `:name.txt`) is left to Express, whose pattern decides where it splits.
 */
function paramValue(segment: { suffix: string }, given: string): string | undefined {
  if (!given.endsWith(segment.suffix)) return undefined;
  const value = given.slice(0, given.length - segment.suffix.length);
  return value === '' || (segment.suffix !== '' && value.includes(segment.suffix[0]!)) ? undefined : value;
}

interface CompiledRoute {
  surface: HotSurface;
  route: HotRoute;
  /** The path's segments after the mount. */
  segments: readonly Segment[];
  /** The metrics' route label, as the request log's routeLabel gives it for Express: the route's template once its handler runs, the surface's `/*` before. */
  routeName: (req: Request) => string;
}

function routeNameOf(label: string, beforeRoute: string): (req: Request) => string {
  return (req) => (routed.get(req.res!) ? label : beforeRoute);
}

/**
 * A path the fast path reads: segments of letters, digits and `-._~` that do not begin with a dot.
 * Anything else (a percent-escape, which Express would decode; `//`; a dot segment; another
 * character) is left to Express, which knows what it means.
 */
const PLAIN_PATH = /^(\/[A-Za-z0-9_~-][A-Za-z0-9._~-]*)*\/?$/;

/** Paths whose route the fast path remembers, and the longest it remembers (a TAXII object's path is about 150 characters). */
const MAX_REMEMBERED_PATHS = 1_000;
const MAX_REMEMBERED_PATH_LENGTH = 512;

/** A surface's hot routes, compiled. */
interface CompiledSurface {
  mount: string;
  routes: readonly CompiledRoute[];
}

/** The parameters of `route` in a path's segments after the mount, or undefined when it does not match them as written. */
function paramsOf(route: CompiledRoute, given: readonly string[]): Record<string, string> | undefined {
  if (given.length !== route.segments.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < given.length; i++) {
    const want = route.segments[i]!;
    if ('param' in want) {
      const value = paramValue(want, given[i]!);
      if (value === undefined) return undefined;
      params[want.param] = value;
    }
    // Literal segments as the route table writes them: other spellings (Express ignores case) go to Express.
    else if (want.literal !== given[i]) return undefined;
  }
  return params;
}

/** A path's route and its parameters (shared by every request for the path: never changed). */
interface RouteMatch {
  compiled: CompiledRoute;
  params: RouteParams;
}

/** The route a path names, and its parameters; undefined when none matches as written. */
function matchRoute(surfaces: readonly CompiledSurface[], path: string): RouteMatch | undefined {
  if (!PLAIN_PATH.test(path)) return undefined;
  for (const { mount, routes } of surfaces) {
    if (!path.startsWith(mount) || (path.length > mount.length && path[mount.length] !== '/')) continue;
    // Express matches a route with or without one trailing slash (the router's `strict` is off).
    const rest = path.slice(mount.length).replace(/\/$/, '');
    const given = rest === '' ? [] : rest.slice(1).split('/');
    for (const compiled of routes) {
      const params = paramsOf(compiled, given);
      if (params) return { compiled, params: Object.freeze(params) };
    }
    return undefined;
  }
  return undefined;
}

/** A request the fast path may look at: GET or HEAD, no body, built by the app's request class. */
function eligible(req: IncomingMessage, app: Express): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  const length = req.headers['content-length'];
  if ((length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined) return false;
  // Requests built without the app's classes (express-server.ts) lack the readers Express gives
  // them (req.query, req.ip, req.secure): only Express can answer those.
  return Object.getPrototypeOf(req) === app.request && req.url !== undefined && req.url.startsWith('/');
}

/** Whether a response the fast path answers got past the surface's checks to its route (the metrics' label then names the route). */
const routed = new RequestSlot<boolean>('routed');

/** The route's handler, once the checks let the request through (their headers then wait with the rest in `list`). */
function proceed(req: Request, res: Response, compiled: CompiledRoute, params: RouteParams, list: HeaderList | undefined): MaybePromise<void> {
  routed.set(res, true);
  if (list) deferHeaders(res, list);
  return compiled.route.handle(req, res, params);
}

/** An error of the checks or the handler, rendered as the router renders it, on a response that holds every header set so far. */
function fail(error: unknown, req: Request, res: Response, compiled: CompiledRoute, list: HeaderList | undefined): void {
  if (list) {
    takeDeferredHeaders(res);
    if (!res.headersSent) list.moveTo(res);
  }
  // Where Express would end in its final handler (a renderer that fails, or passes the error
  // on), the response can only be cut off.
  try {
    compiled.surface.renderError(error, req, res, () => res.destroy());
  } catch {
    res.destroy();
  }
}

export interface FastPathParts {
  requestLog: RequestLog;
  securityHeaders: SecurityHeaders;
  surfaces: readonly HotSurface[];
}

/**
 * The server's request listener: the fast path in front of `app`. A request it is sure of is
 * answered as the app would answer it, by the same parts in the same order: watched by the request
 * log (its line and its metrics, under the route template), given the security headers, then the
 * surface's checks and handler (key, rate limits, plan, media type; the cached body), an error
 * rendered by the surface's renderer. Only the route is found another way: by the surfaces' hot
 * routes instead of Express's router. Anything it is not sure of (another method, a body, a path
 * it does not read as written, a route it has no answer for, an answer not cached) goes to the app
 * before anything is counted or written.
 */
export function createFastPath(app: Express, parts: FastPathParts): (req: IncomingMessage, res: ServerResponse) => void {
  const surfaces: CompiledSurface[] = parts.surfaces.map((surface) => ({
    mount: surface.mount,
    routes: surface.routes.map((route) => ({
      surface,
      route,
      segments: route.path.split('/').filter((segment) => segment !== '').map(segmentOf),
      routeName: routeNameOf(`${surface.mount}${route.path}`, `${surface.mount}/*`),
    })),
  }));
  const toApp = (req: IncomingMessage, res: ServerResponse) => void app(req, res);
  /**
   * The routes of paths asked for lately, and the paths that match none (null): pollers ask for the
   * same few paths again and again. At most MAX_REMEMBERED_PATHS, then forgotten all at once.
   */
  const remembered = new Map<string, RouteMatch | null>();
  const routeOf = (path: string): RouteMatch | undefined => {
    let found = remembered.get(path);
    if (found === undefined) {
      found = matchRoute(surfaces, path) ?? null;
      if (path.length <= MAX_REMEMBERED_PATH_LENGTH) rememberBounded(remembered, MAX_REMEMBERED_PATHS, path, found);
    }
    return found ?? undefined;
  };

  const answer = (req: Request, res: Response, compiled: CompiledRoute, params: RouteParams) => {
    // As Express's app.handle does: the response's freshness check (req.fresh) reads it.
    req.res = res;
    parts.requestLog.watch(req, res, compiled.routeName);
    // The headers, from the security headers on, go on the response as Express's stack sets them,
    // or wait in a list for sendBytes to write with the body (HotRoute.sendsBytes).
    const list = compiled.route.sendsBytes ? parts.securityHeaders.list(req.secure) : undefined;
    if (!list) parts.securityHeaders.apply(res, req.secure);
    // The checks and the handler run at once while each answers at once (everything in memory),
    // and wait where one returns a promise: the order is the same either way.
    let done: MaybePromise<void>;
    try {
      const admitted = compiled.route.admit(req, res, params, list ?? res);
      done = admitted instanceof Promise ? admitted.then(() => proceed(req, res, compiled, params, list)) : proceed(req, res, compiled, params, list);
    } catch (error) {
      fail(error, req, res, compiled, list);
      return;
    }
    if (done instanceof Promise) done.catch((error: unknown) => fail(error, req, res, compiled, list));
  };

  return (incoming, outgoing) => {
    if (!eligible(incoming, app)) return toApp(incoming, outgoing);
    const req = incoming as Request;
    const res = outgoing as Response;
    const url = req.url;
    const q = url.indexOf('?');
    const found = routeOf(q === -1 ? url : url.slice(0, q));
    if (!found) return toApp(req, res);
    const { compiled, params } = found;
    let known: boolean | Promise<boolean>;
    try {
      known = compiled.route.known(req, params);
    } catch {
      // A request it cannot read (a 400 to be) is Express's to answer, checks first.
      return toApp(req, res);
    }
    if (known === true) return answer(req, res, compiled, params);
    if (known === false) return toApp(req, res);
    known.then(
      (yes) => (yes ? answer(req, res, compiled, params) : toApp(req, res)),
      () => toApp(req, res),
    );
  };
}
