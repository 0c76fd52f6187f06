// The TAXII 2.1 gateway's route table: auth, rate limits, plan gate and media type first, then resources.
import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { CollectionConfig, Config } from '../config.js';
import type { Clock } from '../clock.js';
import { ForbiddenError, NotAcceptableError, NotFoundError } from '../errors.js';
import type { Logger } from '../logger.js';
import { andThen, type MaybePromise } from '../maybe-promise.js';
import type { Metrics } from '../metrics/metrics.js';
import type { HotRoute, HotSurface, RouteParams } from '../http/fast-path.js';
import type { HeaderSink } from '../http/header-list.js';
import { methodNotAllowed } from '../http/method-guard.js';
import { prettyParam } from '../http/query-params.js';
import { setClient } from '../plans/request-client.js';
import type { RateLimiter } from '../plans/rate-limiters.js';
import type { Store } from '../store/store.js';
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

/** Media type after auth and plan (DESIGN section 5): 406 when nothing acceptable is asked for. */
function requireTaxiiMediaType(res: Response): void {
  if (!acceptsTaxii(getAccept(res))) {
    throw new NotAcceptableError(`This server answers only with ${TAXII_MEDIA_TYPE}; send it in the Accept header (or in the accept parameter with query-string authentication).`);
  }
}

/** Collections are read-only views of the data: writes are refused (TAXII 2.1 sections 5.5, 5.7). */
const readOnly: RequestHandler = () => {
  throw new ForbiddenError('Collections on this server are read-only (can_write is false).');
};

export interface TaxiiSurface {
  router: Router;
  /** The routes the fast path answers when their body is known (http/fast-path.ts). */
  hot: HotSurface;
}

export function createTaxiiSurface(deps: TaxiiDeps): TaxiiSurface {
  const { config } = deps;
  const objects = createObjectHandlers({ store: deps.store, config, clock: deps.clock, logger: deps.logger, secret: createNextSecretReader(deps.store, deps.nextTokenSecret), cacheCounter: deps.metrics?.cache('taxii') });
  const clientOf = createBasicOrQueryClientResolver(deps.authenticate, TAXII_KEY_HINT);
  const planGate = createPlanGate(config);
  const useCollection = createCollectionResolver(config);
  const renderError = createTaxiiErrorRenderer(deps.logger);

  /**
   * The checks of every TAXII request, in DESIGN section 5's order. The TAXII media type is set
   * first: every response of the gateway carries it, errors and the 304 that sendBytes answers a
   * conditional request with included (some TAXII clients check it on every response; RFC 9110
   * section 15.4.5 leaves Content-Type off a 304, as the lookup API does, but here the TAXII
   * contract wins). Then the key (401, and 429 for too many failures; a 400 for `accept` given
   * twice), the rate limits (429), the plan (403; `collectionId`, the collection the path names,
   * may be the free test collection), and the media type (406). At once (no promise) when the key's
   * record and the counters are in memory: an error is then thrown, else the promise rejects with it.
   */
  const admit = (req: Request, res: Response, collectionId: string | undefined, headers: HeaderSink = res): MaybePromise<void> => {
    headers.setHeader('Content-Type', TAXII_MEDIA_TYPE);
    return andThen(clientOf(req), (client) => {
      setClient(res, client);
      setAcceptOf(req, res);
      return andThen(deps.rateLimit.count(client, req.ip, headers), () => {
        planGate(client, collectionId);
        requireTaxiiMediaType(res);
      });
    });
  };

  // Discovery, the API root and the collections come from the config: serialized once, both ways.
  const rendered = (body: unknown) => ({ compact: Buffer.from(serialize(body, false), 'utf8'), pretty: Buffer.from(serialize(body, true), 'utf8') });
  const sendRendered = (req: Request, res: Response, body: { compact: Buffer; pretty: Buffer }) => sendTaxii(res, 200, prettyParam(req) ? body.pretty : body.compact);
  const json = (body: unknown) => {
    const bytes = rendered(body);
    return (req: Request, res: Response) => sendRendered(req, res, bytes);
  };
  const collectionBodies = new Map(config.collections.map((c) => [c.id, rendered(collectionResource(c))]));
  const discovery = json(discoveryResource(config));
  const apiRoot = json(apiRootResource(config));
  const collections = json(collectionsResource(config));
  const collection = (req: Request, res: Response) => sendRendered(req, res, collectionBodies.get(getCollection(res).id)!);
  const listing = (kind: ListingKind) => (req: Request, res: Response) => objects.serve(req, res, kind, req.params.objectId === undefined ? undefined : String(req.params.objectId));
  const onlyGet = methodNotAllowed(['GET', 'HEAD']);

  const router = Router();
  const admission: RequestHandler = async (req, res, next) => {
    await admit(req, res, taxiiCollectionOf(req.path));
    next();
  };
  router.use(admission);
  router.route('/').get(discovery).all(onlyGet); // 4.1 Server Discovery
  router.route('/api').get(apiRoot).all(onlyGet); // 4.2 API Root Information
  router.route('/api/status/:statusId').all((req) => {
    // 4.3 Get Status: nothing is ever written, so no status resource exists.
    throw new NotFoundError(`No status ${String(req.params.statusId)}: this server accepts no writes.`);
  });
  router.route('/api/collections').get(collections).all(onlyGet); // 5.1 Get Collections
  router.use('/api/collections/:collectionId', (req, res, next) => {
    useCollection(res, String(req.params.collectionId));
    next();
  });
  router.route('/api/collections/:collectionId').get(collection).all(onlyGet); // 5.2 Get a Collection
  router.route('/api/collections/:collectionId/manifest').get(listing('manifest')).all(onlyGet); // 5.3 Get Object Manifests
  router
    .route('/api/collections/:collectionId/objects')
    .get(listing('objects')) // 5.4 Get Objects
    .post(readOnly) // 5.5 Add Objects
    .all(methodNotAllowed(['GET', 'HEAD', 'POST']));
  router
    .route('/api/collections/:collectionId/objects/:objectId')
    .get(listing('object')) // 5.6 Get an Object
    .delete(readOnly) // 5.7 Delete an Object
    .all(methodNotAllowed(['GET', 'HEAD', 'DELETE']));
  router.route('/api/collections/:collectionId/objects/:objectId/versions').get(listing('versions')).all(onlyGet); // 5.8 Get Object Versions
  router.use(taxiiNotFoundRoute);
  router.use(renderError);

  // The fast path's share of the table above: the same checks and handlers, for answers known
  // before they are asked for (the resources from the config; listings in the page cache).
  const configured = new Map(config.collections.map((c) => [c.id, c]));
  // Every handler here answers through sendTaxii, hence sendBytes.
  const fixed = (path: string, handle: (req: Request, res: Response) => void): HotRoute => ({
    path,
    known: () => true,
    admit: (req, res, _params, headers) => admit(req, res, undefined, headers),
    handle,
    sendsBytes: true,
  });
  const inCollection = (path: string, known: (req: Request, collection: CollectionConfig, params: RouteParams) => boolean | Promise<boolean>, handle: HotRoute['handle']): HotRoute => ({
    path,
    known: (req, params) => {
      const found = configured.get(params.collectionId!);
      return found !== undefined && known(req, found, params);
    },
    // The router's checks, then its collection resolver (both before the route, as router.use runs them).
    admit: (req, res, params, headers) => andThen(admit(req, res, params.collectionId, headers), () => void useCollection(res, params.collectionId!)),
    handle,
    sendsBytes: true,
  });
  const hotListing = (path: string, kind: ListingKind) =>
    inCollection(
      path,
      (req, found, params) => objects.isCached(req, kind, found, params.objectId),
      (req, res, params) => objects.serve(req, res, kind, params.objectId),
    );
  const hot: HotSurface = {
    mount: '/taxii2',
    renderError,
    routes: [
      fixed('/', discovery),
      fixed('/api', apiRoot),
      fixed('/api/collections', collections),
      inCollection('/api/collections/:collectionId', () => true, collection),
      hotListing('/api/collections/:collectionId/manifest', 'manifest'),
      hotListing('/api/collections/:collectionId/objects', 'objects'),
      hotListing('/api/collections/:collectionId/objects/:objectId', 'object'),
      hotListing('/api/collections/:collectionId/objects/:objectId/versions', 'versions'),
    ],
  };
  return { router, hot };
}
