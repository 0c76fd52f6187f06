// The exports' route table (docs/interface.md section 11): the keys, limits and plan gate of TAXII, then one list per collection and format.
import type { Request } from 'express';
import { createApiErrorRenderer, notFoundRoute } from '../api/api-errors.js';
import type { KeyAuthenticator } from '../auth/authenticate-key.js';
import type { Clock } from '../clock.js';
import type { CollectionConfig, Config } from '../config.js';
import type { Logger } from '../logger.js';
import { VersionWatch } from '../http/response-cache.js';
import type { Route, RouteStep, SurfaceTable } from '../http/route-table.js';
import { createClientAdmission } from '../plans/admit-client.js';
import type { RateLimiter } from '../plans/rate-limiters.js';
import { getClient } from '../plans/request-client.js';
import type { Store } from '../store/contract/store.js';
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
export function createExportSurface(deps: ExportDeps): SurfaceTable {
  const { config } = deps;
  const named = (name: string) => collectionByName(config.collections, name);
  const clientOf = createBasicOrQueryClientResolver(deps.authenticate, 'HTTP Basic with username "taxii2" and the API key as password, or ?key=<API key>');
  const admit = createClientAdmission(clientOf, deps.rateLimit);
  const planGate = createPlanGate(config);
  const useCollection = createCollectionResolver(config, named);
  const versions = new VersionWatch(() => deps.store.dataVersion(), deps.clock, config.cache.versionCheckMs);

  /** The plan for the collection the name finds (403), then the collection itself (404). */
  const useNamed: RouteStep = (_req, res, params) => {
    const name = params.collectionId!;
    planGate(getClient(res), named(name)?.id);
    useCollection(res, name);
  };
  /** A list in one format; known to the fast path when the poll names its current ETag (the 304 the sender answers, known without the store: the version as watched). */
  const list = (path: string, format: ExportFormat): Route => {
    const sender = createExportSender({ ...deps, versions }, format);
    const isCurrent = (req: Request, collection: CollectionConfig, version: string) => namesTag(req.headers['if-none-match'], exportValidators(version, collection, exportOptions(req, format)).etag);
    return {
      path,
      guards: [useNamed],
      get: (req, res) => sender(req, res, () => undefined),
      known: (req, params) => {
        const collection = named(params.collectionId!);
        if (collection === undefined || req.headers['if-none-match'] === undefined) return false;
        const version = versions.current();
        return typeof version === 'string' ? isCurrent(req, collection, version) : version.then((v) => isCurrent(req, collection, v));
      },
    };
  };

  return {
    mount: '/export',
    // Every request under /export: the key (401; 429 for too many failures), then the rate limits (429).
    admit: (req, res, _path, headers) => admit(req, res, headers),
    routes: [
      list('/:collectionId.txt', 'txt'), // one value per line
      list('/:collectionId.csv', 'csv'), // value,type,risk,stamp_seen,threats
    ],
    // Answered and rendered here, so that the metrics count each under the surface's route templates (`/export/*` when none).
    notFound: notFoundRoute,
    renderError: createApiErrorRenderer(deps.logger),
  };
}
