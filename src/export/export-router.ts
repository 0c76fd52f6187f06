// The exports' route table (DESIGN section 10): the keys, limits and plan gate of TAXII, then one list per collection and format.
import { Router, type RequestHandler } from 'express';
import { createApiErrorRenderer, notFoundRoute } from '../api/api-errors.js';
import type { KeyAuthenticator } from '../auth/authenticate-key.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { methodNotAllowed } from '../http/method-guard.js';
import type { RateLimiter } from '../plans/rate-limiters.js';
import { getClient, setClient } from '../plans/request-client.js';
import type { Store } from '../store/store.js';
import { createCollectionResolver } from '../taxii/collection-resolver.js';
import { createPlanGate } from '../taxii/plan-gate.js';
import { createBasicOrQueryClientResolver } from '../taxii/taxii-auth.js';
import { collectionByName } from './collection-by-name.js';
import { createExportSender } from './send-export.js';

export interface ExportDeps {
  store: Store;
  config: Config;
  logger: Logger;
  /** The rate limits every surface shares: every export request counts. */
  rateLimit: RateLimiter;
  authenticate: KeyAuthenticator;
}

/**
 * Checked in TAXII's order: the key (401), the rate limits (429), the plan (403), the collection
 * (404), then the parameters (400). Errors are rendered as the lookup API's, `{"error": ...}`:
 * a firewall logs the status, a person reads the message. A collection is named by its id or its
 * alias, as `threatgate export` names it; the plan gate judges the collection the name finds.
 */
export function createExportRouter(deps: ExportDeps): Router {
  const { config } = deps;
  const named = (name: string) => collectionByName(config.collections, name);
  const clientOf = createBasicOrQueryClientResolver(deps.authenticate, 'HTTP Basic with username "taxii2" and the API key as password, or ?key=<API key>');
  const planGate = createPlanGate(config);
  const useCollection = createCollectionResolver(config, named);
  const onlyGet = methodNotAllowed(['GET', 'HEAD']);

  /** The key (401; 429 for too many failures), then the rate limits (429): every request under /export. */
  const admission: RequestHandler = async (req, res, next) => {
    setClient(res, await clientOf(req));
    await deps.rateLimit.count(getClient(res), req.ip, res);
    next();
  };
  /** The plan for the collection the name finds (403), then the collection itself (404). */
  const collection: RequestHandler = (req, res, next) => {
    const name = String(req.params.collectionId);
    planGate(getClient(res), named(name)?.id);
    useCollection(res, name);
    next();
  };

  const router = Router();
  router.use(admission);
  router.route('/:collectionId.txt').get(collection, createExportSender(deps, 'txt')).all(onlyGet); // one value per line
  router.route('/:collectionId.csv').get(collection, createExportSender(deps, 'csv')).all(onlyGet); // value,type,risk,stamp_seen,threats
  // Answered and rendered here, so that the metrics count each under the surface's route templates (`/export/*` when none).
  router.use(notFoundRoute);
  router.use(createApiErrorRenderer(deps.logger));
  return router;
}
