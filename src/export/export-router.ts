// The exports' route table (DESIGN section 10): the keys, limits and plan gate of TAXII, then one list per collection and format.
import { Router, type RequestHandler } from 'express';
import { createApiErrorRenderer, notFoundRoute } from '../api/api-errors.js';
import type { KeyAuthenticator } from '../auth/authenticate-key.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { methodNotAllowed } from '../http/method-guard.js';
import type { Store } from '../store/store.js';
import { createCollectionResolver } from '../taxii/collection-resolver.js';
import { createPlanGate } from '../taxii/plan-gate.js';
import { createBasicOrQueryKeyAuthenticator } from '../taxii/taxii-auth.js';
import { collectionByName } from './collection-by-name.js';
import { createExportSender } from './send-export.js';

export interface ExportDeps {
  store: Store;
  config: Config;
  logger: Logger;
  /** The rate limits every surface shares: every export request counts. */
  rateLimit: RequestHandler;
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
  const named = (name: unknown) => (typeof name === 'string' ? collectionByName(config.collections, name) : undefined);
  const planGate = createPlanGate(config, (req) => named(req.params.collectionId)?.id);
  const collection = createCollectionResolver(config, named);
  const onlyGet = methodNotAllowed(['GET', 'HEAD']);

  const router = Router();
  router.use(createBasicOrQueryKeyAuthenticator(deps.authenticate, 'HTTP Basic with username "taxii2" and the API key as password, or ?key=<API key>'), deps.rateLimit);
  router.route('/:collectionId.txt').get(planGate, collection, createExportSender(deps, 'txt')).all(onlyGet); // one value per line
  router.route('/:collectionId.csv').get(planGate, collection, createExportSender(deps, 'csv')).all(onlyGet); // value,type,risk,stamp_seen,threats
  // Answered and rendered here, so that the metrics count each under the surface's route templates (`/export/*` when none).
  router.use(notFoundRoute);
  router.use(createApiErrorRenderer(deps.logger));
  return router;
}
