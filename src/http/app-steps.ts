// The steps every request takes before its surface, declared once: the request log and metrics, then the security headers.
import type { Request, RequestHandler, Response } from 'express';
import type { HeaderList } from './header-list.js';
import { routeLabel, type AnsweredBy, type RequestLog } from './request-log.js';
import type { SecurityHeaders } from './security-headers.js';

export interface AppSteps {
  /**
   * Runs the steps on a request answered `by` the fast path or Express: the request log watches it
   * (its line and its metrics, under the route `routeOf` names once it finishes), then the security
   * headers go on the response, or, with `deferred`, into a list returned for the response's
   * headers to wait in (http/header-list.ts).
   */
  run(req: Request, res: Response, by: AnsweredBy, routeOf: (req: Request) => string, deferred: boolean): HeaderList | undefined;
  /** The same steps as the app's first middleware, the route named by Express (routeLabel). */
  middleware: RequestHandler;
}

export function createAppSteps(requestLog: RequestLog, securityHeaders: SecurityHeaders): AppSteps {
  const run: AppSteps['run'] = (req, res, by, routeOf, deferred) => {
    requestLog.watch(req, res, routeOf, by);
    if (deferred) return securityHeaders.list(req.secure);
    securityHeaders.apply(res, req.secure);
    return undefined;
  };
  return {
    run,
    middleware: (req, res, next) => {
      run(req, res, 'express', routeLabel, false);
      next();
    },
  };
}
