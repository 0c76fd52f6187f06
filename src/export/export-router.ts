// The exports' route table (DESIGN section 10): the keys, limits and plan gate of TAXII, then one list per collection and format.
import { Router, type Request, type RequestHandler, type Response } from 'express';
import { createApiErrorRenderer, notFoundRoute } from '../api/api-errors.js';
import type { KeyAuthenticator } from '../auth/authenticate-key.js';
import type { Clock } from '../clock.js';
import type { CollectionConfig, Config } from '../config.js';
import type { Logger } from '../logger.js';
import { andThen, type MaybePromise } from '../maybe-promise.js';
import type { HotRoute, HotSurface } from '../http/fast-path.js';
import { methodNotAllowed } from '../http/method-guard.js';
import { VersionWatch } from '../http/response-cache.js';
import type { RateLimiter } from '../plans/rate-limiters.js';
import { getClient, setClient } from '../plans/request-client.js';
import type { Store } from '../store/store.js';
import { createCollectionResolver } from '../taxii/collection-resolver.js';
import { createPlanGate } from '../taxii/plan-gate.js';
import { createBasicOrQueryClientResolver } from '../taxii/taxii-auth.js';
import { collectionByName } from './collection-by-name.js';
import { exportValidators } from './export-validators.js';
import type { ExportFormat } from './export-format.js';
import { createExportSender, exportOptions } from './send-export.js';

export interface ExportDeps {
  store: Store;
  config: Config;
  clock: Clock;
  logger: Logger;
  /** The rate limits every surface shares: every export request counts. */
  rateLimit: RateLimiter;
  authenticate: KeyAuthenticator;
}

export interface ExportSurface {
  router: Router;
  /** The polls the fast path answers: a conditional request naming the list's current ETag (http/fast-path.ts). */
  hot: HotSurface;
}

/** Whether If-None-Match lists `etag` (or `*`), compared weakly as RFC 9110 section 13.1.2 has it for GET. */
function namesTag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return ifNoneMatch.split(',').some((tag) => tag.trim() === '*' || opaque(tag) === opaque(etag));
}

/**
 * Checked in TAXII's order: the key (401), the rate limits (429), the plan (403), the collection
 * (404), then the parameters (400). Errors are rendered as the lookup API's, `{"error": ...}`:
 * a firewall logs the status, a person reads the message. A collection is named by its id or its
 * alias, as `threatgate export` names it; the plan gate judges the collection the name finds.
 */
export function createExportSurface(deps: ExportDeps): ExportSurface {
  const { config } = deps;
  const named = (name: string) => collectionByName(config.collections, name);
  const clientOf = createBasicOrQueryClientResolver(deps.authenticate, 'HTTP Basic with username "taxii2" and the API key as password, or ?key=<API key>');
  const planGate = createPlanGate(config);
  const useCollection = createCollectionResolver(config, named);
  const versions = new VersionWatch(() => deps.store.dataVersion(), deps.clock, config.cache.versionCheckMs);
  const renderError = createApiErrorRenderer(deps.logger);
  const onlyGet = methodNotAllowed(['GET', 'HEAD']);

  /** The key (401; 429 for too many failures), then the rate limits (429): every request under /export. */
  const admit = (req: Request, res: Response): MaybePromise<void> =>
    andThen(clientOf(req), (client) => {
      setClient(res, client);
      return deps.rateLimit.count(client, req.ip, res);
    });
  /** The plan for the collection the name finds (403), then the collection itself (404). */
  const useNamed = (res: Response, name: string) => {
    planGate(getClient(res), named(name)?.id);
    useCollection(res, name);
  };
  const send = (format: ExportFormat) => createExportSender({ ...deps, versions }, format);
  const formats = [
    ['/:collectionId.txt', 'txt', send('txt')], // one value per line
    ['/:collectionId.csv', 'csv', send('csv')], // value,type,risk,stamp_seen,threats
  ] as const;

  const router = Router();
  const admission: RequestHandler = async (req, res, next) => {
    await admit(req, res);
    next();
  };
  router.use(admission);
  const collection: RequestHandler = (req, res, next) => {
    useNamed(res, String(req.params.collectionId));
    next();
  };
  for (const [path, , sender] of formats) router.route(path).get(collection, sender).all(onlyGet);
  // Answered and rendered here, so that the metrics count each under the surface's route templates (`/export/*` when none).
  router.use(notFoundRoute);
  router.use(renderError);

  return {
    router,
    hot: {
      mount: '/export',
      renderError,
      routes: formats.map(([path, format, sender]): HotRoute => {
        /** The 304 the sender answers a poll that names the current list, known without the store (the version as watched). */
        const known = (req: Request, collection: CollectionConfig, version: string) => namesTag(req.headers['if-none-match'], exportValidators(version, collection, exportOptions(req, format)).etag);
        return {
          path,
          known: (req, params) => {
            const collection = named(params.collectionId!);
            if (collection === undefined || req.headers['if-none-match'] === undefined) return false;
            const version = versions.current();
            return typeof version === 'string' ? known(req, collection, version) : version.then((v) => known(req, collection, v));
          },
          admit,
          // The collection is the route's first handler here, as in the router (a 403 or 404 counts under the route).
          handle: async (req, res, params) => {
            useNamed(res, params.collectionId!);
            await sender(req, res, () => undefined);
          },
        };
      }),
    },
  };
}
