// The fast path: a GET or HEAD whose answer is already known is answered on node's request, before
// Express's router, by the routes of the surfaces' own tables; anything else goes to Express untouched.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Express, Request, Response } from 'express';
import type { MaybePromise } from '../maybe-promise.js';
import type { AppSteps } from './app-steps.js';
import { deferHeaders, takeDeferredHeaders, type HeaderList } from './header-list.js';
import { RequestSlot } from '../request-slot.js';
import type { Route, RouteParams, SurfaceTable } from './route-table.js';
import { rememberBounded } from '../bounded-map.js';

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

/** A route the fast path may answer: one with `known` in its surface's table. */
type FastRoute = Route & Required<Pick<Route, 'known' | 'get'>>;

interface CompiledRoute {
  surface: SurfaceTable;
  route: FastRoute;
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

/** A surface's fast routes, compiled. */
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
  /** The path under the surface's mount, as Express's req.path gives it to the surface's admission. */
  under: string;
}

/** The route a path names, and its parameters; undefined when none matches as written. */
function matchRoute(surfaces: readonly CompiledSurface[], path: string): RouteMatch | undefined {
  if (!PLAIN_PATH.test(path)) return undefined;
  for (const { mount, routes } of surfaces) {
    if (!path.startsWith(mount) || (path.length > mount.length && path[mount.length] !== '/')) continue;
    // Express matches a route with or without one trailing slash (the router's `strict` is off).
    const under = path.slice(mount.length) || '/';
    const rest = under.replace(/\/$/, '');
    const given = rest === '' ? [] : rest.slice(1).split('/');
    for (const compiled of routes) {
      const params = paramsOf(compiled, given);
      if (params) return { compiled, params: Object.freeze(params), under };
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
  // Requests built without the server's classes (express-server.ts) lack the readers Express gives
  // them (req.query, req.ip, req.secure): only Express can answer those.
  return app.request.isPrototypeOf(req) && req.url !== undefined && req.url.startsWith('/');
}

const isFast = (route: Route): route is FastRoute => route.known !== undefined && route.get !== undefined;

/** Whether a response the fast path answers got past the surface's checks to its route (the metrics' label then names the route). */
const routed = new RequestSlot<boolean>('routed');

/** The route's guards and GET handler, once the surface's checks let the request through (their headers then wait with the rest in `list`). */
function proceed(req: Request, res: Response, compiled: CompiledRoute, params: RouteParams, list: HeaderList | undefined): MaybePromise<unknown> {
  routed.set(res, true);
  if (list) deferHeaders(res, list);
  const { guards, get } = compiled.route;
  if (guards === undefined || guards.length === 0) return get(req, res, params);
  return runGuards(req, res, params, guards, 0, get);
}

/** `guards` from `from` on, then `last`: at once while each answers at once. */
function runGuards(req: Request, res: Response, params: RouteParams, guards: NonNullable<Route['guards']>, from: number, last: NonNullable<Route['get']>): MaybePromise<unknown> {
  for (let i = from; i < guards.length; i++) {
    const done = guards[i]!(req, res, params);
    if (done instanceof Promise) return done.then(() => runGuards(req, res, params, guards, i + 1, last));
  }
  return last(req, res, params);
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
  steps: AppSteps;
  surfaces: readonly SurfaceTable[];
}

/**
 * The server's request listener: the fast path in front of `app`. A request it is sure of is
 * answered as the app would answer it, by the same parts in the same order: the app's steps (the
 * request log and metrics, under the route template; the security headers), then the surface's
 * admission (key, rate limits, plan, media type), the route's guards and its GET handler, an error
 * rendered by the surface's renderer. Only the route is found another way: in the surfaces' tables,
 * the ones the app's routers are built from, instead of by Express's router. Anything it is not
 * sure of (another method, a body, a path it does not read as written, a route whose answer is not
 * known now) goes to the app before anything is counted or written.
 */
export function createFastPath(app: Express, parts: FastPathParts): (req: IncomingMessage, res: ServerResponse) => void {
  const surfaces: CompiledSurface[] = parts.surfaces.map((surface) => ({
    mount: surface.mount,
    routes: surface.routes.filter(isFast).map((route) => ({
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

  const answer = (req: Request, res: Response, { compiled, params, under }: RouteMatch) => {
    // As Express's app.handle does: the response's freshness check (req.fresh) reads it.
    req.res = res;
    // The headers, from the security headers on, go on the response as Express's stack sets them,
    // or wait in a list for sendBytes to write with the body (Route.sendsBytes).
    const list = parts.steps.run(req, res, 'fast', compiled.routeName, compiled.route.sendsBytes === true);
    // The checks and the handler run at once while each answers at once (everything in memory),
    // and wait where one returns a promise: the order is the same either way.
    let done: MaybePromise<unknown>;
    try {
      const admitted = compiled.surface.admit(req, res, under, list ?? res);
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
    if (known === true) return answer(req, res, found);
    if (known === false) return toApp(req, res);
    known.then(
      (yes) => (yes ? answer(req, res, found) : toApp(req, res)),
      () => toApp(req, res),
    );
  };
}
