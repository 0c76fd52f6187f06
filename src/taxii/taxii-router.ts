// The TAXII 2.1 gateway's route table: auth, rate limits, plan gate and media type first, then resources.
import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { Config } from '../config.js';
import type { Clock } from '../clock.js';
import { ForbiddenError, NotAcceptableError, NotFoundError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics/metrics.js';
import { methodNotAllowed } from '../http/method-guard.js';
import { prettyParam } from '../http/query-params.js';
import type { Store } from '../store/store.js';
import { createCollectionResolver, getCollection } from './collection-resolver.js';
import { rememberingAcceptsTaxii, TAXII_MEDIA_TYPE } from './media-type.js';
import { createNextSecretReader } from './next-secret.js';
import { createObjectHandlers } from './object-handlers.js';
import { createPlanGate } from './plan-gate.js';
import { createTaxiiAuthenticator, getAccept } from './taxii-auth.js';
import type { KeyAuthenticator } from '../auth/authenticate-key.js';
import { serialize } from '../http/send-json.js';
import { sendTaxii } from './send-taxii.js';
import { createTaxiiErrorRenderer, taxiiNotFoundRoute } from './taxii-errors.js';
import { apiRootResource, collectionResource, collectionsResource, discoveryResource } from './taxii-resources.js';

export interface TaxiiDeps {
  store: Store;
  config: Config;
  logger: Logger;
  rateLimit: RequestHandler;
  authenticate: KeyAuthenticator;
  clock: Clock;
  /** Signs `next` tokens instead of the secret every instance shares in the store (tests). */
  nextTokenSecret?: string;
  /** Counts the object-page cache's hits and misses (`cache="taxii"`). */
  metrics?: Pick<Metrics, 'cache'> | undefined;
}

const acceptsTaxii = rememberingAcceptsTaxii();

/** Media type after auth and plan (DESIGN section 5): 406 when nothing acceptable is asked for. */
const requireTaxiiMediaType: RequestHandler = (_req, res, next) => {
  if (!acceptsTaxii(getAccept(res))) {
    throw new NotAcceptableError(`This server answers only with ${TAXII_MEDIA_TYPE}; send it in the Accept header (or in the accept parameter with query-string authentication).`);
  }
  next();
};

/**
 * Every TAXII response carries the TAXII media type (DESIGN section 5), the 304 that sendBytes
 * answers a conditional request with included: some TAXII clients check it on every response.
 * RFC 9110 section 15.4.5 leaves Content-Type off a 304 (SHOULD NOT), as the lookup API does;
 * here the TAXII contract wins. Set first, so that no response of the gateway goes without it.
 */
const taxiiContentType: RequestHandler = (_req, res, next) => {
  res.setHeader('Content-Type', TAXII_MEDIA_TYPE);
  next();
};

/** Collections are read-only views of the data: writes are refused (TAXII 2.1 sections 5.5, 5.7). */
const readOnly: RequestHandler = () => {
  throw new ForbiddenError('Collections on this server are read-only (can_write is false).');
};

export function createTaxiiRouter(deps: TaxiiDeps): Router {
  const { config } = deps;
  const objects = createObjectHandlers({ store: deps.store, config, clock: deps.clock, logger: deps.logger, secret: createNextSecretReader(deps.store, deps.nextTokenSecret), cacheCounter: deps.metrics?.cache('taxii') });
  // Discovery, the API root and the collections come from the config: serialized once, both ways.
  const rendered = (body: unknown) => ({ compact: Buffer.from(serialize(body, false), 'utf8'), pretty: Buffer.from(serialize(body, true), 'utf8') });
  const sendRendered = (req: Request, res: Response, body: { compact: Buffer; pretty: Buffer }) => sendTaxii(res, 200, prettyParam(req) ? body.pretty : body.compact);
  const json = (body: unknown): RequestHandler => {
    const bytes = rendered(body);
    return (req, res) => sendRendered(req, res, bytes);
  };
  const collectionBodies = new Map(config.collections.map((c) => [c.id, rendered(collectionResource(c))]));
  const onlyGet = methodNotAllowed(['GET', 'HEAD']);

  const router = Router();
  router.use(taxiiContentType, createTaxiiAuthenticator(deps.authenticate), deps.rateLimit, createPlanGate(config), requireTaxiiMediaType);

  router.route('/').get(json(discoveryResource(config))).all(onlyGet); // 4.1 Server Discovery
  router.route('/api').get(json(apiRootResource(config))).all(onlyGet); // 4.2 API Root Information
  router.route('/api/status/:statusId').all((req) => {
    // 4.3 Get Status: nothing is ever written, so no status resource exists.
    throw new NotFoundError(`No status ${String(req.params.statusId)}: this server accepts no writes.`);
  });
  router.route('/api/collections').get(json(collectionsResource(config))).all(onlyGet); // 5.1 Get Collections
  router.use('/api/collections/:collectionId', createCollectionResolver(config));
  router
    .route('/api/collections/:collectionId')
    .get((req, res) => sendRendered(req, res, collectionBodies.get(getCollection(res).id)!)) // 5.2 Get a Collection
    .all(onlyGet);
  router.route('/api/collections/:collectionId/manifest').get(objects.getManifest).all(onlyGet); // 5.3 Get Object Manifests
  router
    .route('/api/collections/:collectionId/objects')
    .get(objects.getObjects) // 5.4 Get Objects
    .post(readOnly) // 5.5 Add Objects
    .all(methodNotAllowed(['GET', 'HEAD', 'POST']));
  router
    .route('/api/collections/:collectionId/objects/:objectId')
    .get(objects.getObject) // 5.6 Get an Object
    .delete(readOnly) // 5.7 Delete an Object
    .all(methodNotAllowed(['GET', 'HEAD', 'DELETE']));
  router.route('/api/collections/:collectionId/objects/:objectId/versions').get(objects.getVersions).all(onlyGet); // 5.8 Get Object Versions

  router.use(taxiiNotFoundRoute);
  router.use(createTaxiiErrorRenderer(deps.logger));
  return router;
}
