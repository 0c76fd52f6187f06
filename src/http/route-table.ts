// A surface's route table: each route declared once, and both the Express router and the fast path's routes built from it.
import { Router, type ErrorRequestHandler, type Request, type RequestHandler, type Response } from 'express';
import { andThen, type MaybePromise } from '../maybe-promise.js';
import type { HeaderSink } from './header-list.js';
import { methodNotAllowed } from './method-guard.js';

/** A route's path parameters, as the request spells them. */
export type RouteParams = Readonly<Record<string, string>>;

/** A route's guard or handler: Express's request and response, and the route's parameters. */
export type RouteStep = (req: Request, res: Response, params: RouteParams) => MaybePromise<unknown>;

/** One route of a surface: its path, what runs for each method, and whether the fast path may answer it. */
export interface Route {
  /** Its path under the surface's mount, in Express's syntax (`/api/collections/:collectionId`). */
  path: string;
  /** Checks of this route after the surface's admission, for every method (a collection resolved, the plan for what the path names). */
  guards?: readonly RouteStep[];
  /** GET, and HEAD with it (Express answers HEAD with the GET handler). */
  get?: RouteStep;
  post?: RouteStep;
  delete?: RouteStep;
  /** Answers every method (no 405). */
  any?: RouteStep;
  /**
   * Whether a GET or HEAD's answer is known now (kept in a response cache for the current data
   * version, or fixed at start-up): then the fast path answers it (http/fast-path.ts). It only
   * reads (no hit, miss or limit is counted); a throw means not sure. Absent: Express only.
   */
  known?: (req: Request, params: RouteParams) => boolean | Promise<boolean>;
  /**
   * The GET handler answers through sendBytes (http/send-json.ts), or throws: on the fast path the
   * response's headers then wait in a list until sendBytes writes them with the body in one
   * writeHead. A handler that writes any other way must leave this out.
   */
  sendsBytes?: boolean;
  // An `openapi` field (the route's operation, from the request and response schemas) fits here
  // once the OpenAPI document is generated from the tables.
}

/** A surface: where it is mounted, the checks of all its requests, its routes, and how it answers what no route does. */
export interface SurfaceTable {
  /** Where the app mounts the surface (`/api`), in lower case. */
  mount: string;
  /**
   * The checks of every request under the mount, before its route (key, rate limits, plan, media
   * type). `path` is the request's path under the mount; the headers they add go on `headers` (the
   * response, or the list standing in for it on the fast path). At once when all they read is in
   * memory (a refusal thrown), else a promise (a refusal rejected).
   */
  admit(req: Request, res: Response, path: string, headers: HeaderSink): MaybePromise<unknown>;
  routes: readonly Route[];
  /** What answers a path no route matches (a 404 in the surface's own error format). */
  notFound: RequestHandler;
  renderError: ErrorRequestHandler;
}

/** The methods a route answers, for its 405's Allow header. */
export function allowedMethods(route: Route): string[] {
  return [...(route.get ? ['GET', 'HEAD'] : []), ...(route.post ? ['POST'] : []), ...(route.delete ? ['DELETE'] : [])];
}

const asMiddleware =
  (step: RouteStep): RequestHandler =>
  (req, res, next) =>
    andThen(step(req, res, req.params as RouteParams), () => next());
const asHandler =
  (step: RouteStep): RequestHandler =>
  (req, res) =>
    step(req, res, req.params as RouteParams);

/**
 * The surface's Express router: its admission for every request, then each route in table order
 * (its guards for every method, its handlers, a 405 naming the methods it answers), then the
 * surface's 404 and error renderer. Mounted at `table.mount`.
 */
export function createSurfaceRouter(table: SurfaceTable): Router {
  const router = Router();
  router.use((req, res, next) => andThen(table.admit(req, res, req.path, res), () => next()));
  for (const route of table.routes) {
    const chain = router.route(route.path);
    if (route.guards && route.guards.length > 0) chain.all(...route.guards.map(asMiddleware));
    if (route.get) chain.get(asHandler(route.get));
    if (route.post) chain.post(asHandler(route.post));
    if (route.delete) chain.delete(asHandler(route.delete));
    chain.all(route.any ? asHandler(route.any) : methodNotAllowed(allowedMethods(route)));
  }
  router.use(table.notFound);
  router.use(table.renderError);
  return router;
}

/**
 * An Express middleware as a route step, for a surface that reuses one (an authenticator, a body
 * parser): done when it calls `next()`, failed with what it passes to `next` or throws.
 */
export function middlewareStep(middleware: RequestHandler): RouteStep {
  return (req, res) =>
    new Promise<void>((resolve, reject) => {
      const done = (error?: unknown) => (error === undefined ? resolve() : reject(error));
      try {
        const returned = middleware(req, res, done) as unknown;
        if (returned instanceof Promise) returned.catch(reject);
      } catch (error) {
        reject(error);
      }
    });
}
