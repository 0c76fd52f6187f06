// The TAXII 2.1 gateway's route table: auth, rate limits, plan gate and media type first, then resources.
import type { Request, Response } from 'express';
import type { Config } from '../config.js';
import type { Clock } from '../clock.js';
import { ForbiddenError, NotAcceptableError, NotFoundError } from '../errors.js';
import type { Logger } from '../logger.js';
import { andThen } from '../maybe-promise.js';
import type { Metrics } from '../metrics/metrics.js';
import { prettyParam } from '../http/query-params.js';
import type { Route, RouteStep, SurfaceTable } from '../http/route-table.js';
import { createClientAdmission } from '../plans/admit-client.js';
import type { RateLimiter } from '../plans/rate-limiters.js';
import type { Store } from '../store/contract/store.js';
import { createCollectionResolver, getCollection } from './collection-resolver.js';
import { rememberingAcceptsTaxii, TAXII_MEDIA_TYPE } from './media-type.js';
import { createNextSecretReader } from './next-secret.js';
import { createObjectHandlers, type ListingKind } from './object-handlers.js';
import { createPlanGate, taxiiCollectionOf } from './plan-gate.js';
import { createBasicOrQueryClientResolver, getAccept, setAcceptOf, TAXII_KEY_HINT } from './taxii-auth.js';
import type { KeyAuthenticator } from '../auth/authenticate-key.js';
import { serialize } from '../http/send-json.js';
import { sendTaxii } from './send-taxii.js';
import { createTaxiiErrorRenderer, taxiiNotFoundRoute } from './taxii-errors.js';
import { apiRootResource, collectionResource, collectionsResource, discoveryResource } from './taxii-resources.js';

export interface TaxiiDeps {
  store: Store;
  config: Config;
  logger: Logger;
  rateLimit: RateLimiter;
  authenticate: KeyAuthenticator;
  clock: Clock;
  /** Signs `next` tokens instead of the secret every instance shares in the store (tests). */
  nextTokenSecret?: string;
  /** Counts the object-page cache's hits and misses (`cache="taxii"`). */
  metrics?: Pick<Metrics, 'cache'> | undefined;
}

const acceptsTaxii = rememberingAcceptsTaxii();

/** Media type after auth and plan (docs/interface.md section 9.5): 406 when nothing acceptable is asked for. */
function requireTaxiiMediaType(res: Response): void {
  if (!acceptsTaxii(getAccept(res))) {
    throw new NotAcceptableError(`This server answers only with ${TAXII_MEDIA_TYPE}; send it in the Accept header (or in the accept parameter with query-string authentication).`);
  }
}

/** Collections are read-only views of the data: writes are refused (TAXII 2.1 sections 5.5, 5.7). */
const readOnly: RouteStep = () => {
  throw new ForbiddenError('Collections on this server are read-only (can_write is false).');
};

/** The collection segment of a path under /api/collections/, decoded as Express decodes a parameter (its path segments match in any case, as Express's routes do). */
const COLLECTION_SEGMENT = /^\/api\/collections\/([^/]+)(?:\/|$)/i;
function collectionNamed(path: string): string | undefined {
  const segment = COLLECTION_SEGMENT.exec(path)?.[1];
  if (segment === undefined || !segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

const notFound = (message: string): never => {
  throw new NotFoundError(message);
};

export function createTaxiiSurface(deps: TaxiiDeps): SurfaceTable {
  const { config } = deps;
  const objects = createObjectHandlers({ store: deps.store, config, clock: deps.clock, logger: deps.logger, secret: createNextSecretReader(deps.store, deps.nextTokenSecret), cacheCounter: deps.metrics?.cache('taxii') });
  const admitClient = createClientAdmission(createBasicOrQueryClientResolver(deps.authenticate, TAXII_KEY_HINT), deps.rateLimit, setAcceptOf);
  const planGate = createPlanGate(config);
  const useCollection = createCollectionResolver(config);
  const configured = new Map(config.collections.map((c) => [c.id, c]));

  /**
   * The checks of every TAXII request, in docs/interface.md section 9.5's order. The TAXII media
   * type is set first: every response of the gateway carries it, errors and the 304 that sendBytes
   * answers a conditional request with included (some TAXII clients check it on every response;
   * RFC 9110 section 15.4.5 leaves Content-Type off a 304, as the lookup API does, but here the
   * TAXII contract wins). Then the key (401, and 429 for too many failures; a 400 for `accept`
   * given twice), the rate limits (429), the plan (403; the collection the path names may be the
   * free test collection), the media type (406), and last the collection a path under
   * /api/collections/ names (404 when none), for the handlers after it: before the route, so that
   * an unknown collection is answered the same whatever follows it in the path.
   */
  const admit: SurfaceTable['admit'] = (req, res, path, headers) => {
    headers.setHeader('Content-Type', TAXII_MEDIA_TYPE);
    return andThen(admitClient(req, res, headers), (client) => {
      planGate(client, taxiiCollectionOf(path));
      requireTaxiiMediaType(res);
      const named = collectionNamed(path);
      if (named !== undefined) useCollection(res, named);
    });
  };

  // Discovery, the API root and the collections come from the config: serialized once, both ways.
  const rendered = (body: unknown) => ({ compact: Buffer.from(serialize(body, false), 'utf8'), pretty: Buffer.from(serialize(body, true), 'utf8') });
  const sendRendered = (req: Request, res: Response, body: { compact: Buffer; pretty: Buffer }) => sendTaxii(res, 200, prettyParam(req) ? body.pretty : body.compact);
  /** A resource fixed at start-up: always known. Every handler here answers through sendTaxii, hence sendsBytes. */
  const fixed = (path: string, body: unknown): Route => {
    const bytes = rendered(body);
    return { path, get: (req, res) => sendRendered(req, res, bytes), known: () => true, sendsBytes: true };
  };
  const collectionBodies = new Map(config.collections.map((c) => [c.id, rendered(collectionResource(c))]));
  /** A listing: known when its page is in the page cache. */
  const listing = (path: string, kind: ListingKind, writes: Pick<Route, 'post' | 'delete'> = {}): Route => ({
    path,
    get: (req, res, params) => objects.serve(req, res, kind, params.objectId),
    ...writes,
    known: (req, params) => {
      const found = configured.get(params.collectionId!);
      return found !== undefined && objects.isCached(req, kind, found, params.objectId);
    },
    sendsBytes: true,
  });

  return {
    mount: '/taxii2',
    admit,
    routes: [
      fixed('/', discoveryResource(config)), // 4.1 Server Discovery
      fixed('/api', apiRootResource(config)), // 4.2 API Root Information
      // 4.3 Get Status: nothing is ever written, so no status resource exists.
      { path: '/api/status/:statusId', any: (_req, _res, params) => notFound(`No status ${params.statusId}: this server accepts no writes.`) },
      fixed('/api/collections', collectionsResource(config)), // 5.1 Get Collections
      {
        path: '/api/collections/:collectionId', // 5.2 Get a Collection
        get: (req, res) => sendRendered(req, res, collectionBodies.get(getCollection(res).id)!),
        known: (_req, params) => configured.has(params.collectionId!),
        sendsBytes: true,
      },
      listing('/api/collections/:collectionId/manifest', 'manifest'), // 5.3 Get Object Manifests
      listing('/api/collections/:collectionId/objects', 'objects', { post: readOnly }), // 5.4 Get Objects, 5.5 Add Objects
      listing('/api/collections/:collectionId/objects/:objectId', 'object', { delete: readOnly }), // 5.6 Get an Object, 5.7 Delete an Object
      listing('/api/collections/:collectionId/objects/:objectId/versions', 'versions'), // 5.8 Get Object Versions
    ],
    notFound: taxiiNotFoundRoute,
    renderError: createTaxiiErrorRenderer(deps.logger),
  };
}
