// Handlers of the collection endpoints that list objects: objects, object, versions, manifest.
import type { Logger } from '../logger.js';
import type { MaybePromise } from '../maybe-promise.js';
import type { Request, Response } from 'express';
import type { CollectionConfig, Config } from '../config.js';
import { NotFoundError } from '../errors.js';
import type { Store } from '../store/contract/store.js';
import type { Clock } from '../clock.js';
import { ResponseCache, type CacheCounter } from '../http/response-cache.js';
import { normalizeStixTime } from '../stix/index.js';
import { dateAddedHeaders, envelopeJson, manifestJson, versionsJson, type PageResult } from './envelope.js';
import { decodeNext, encodeNext, type ObjectFilters } from './next-token.js';
import { parseListingQuery, type MatchField } from './query-filters.js';
import { getCollection } from './collection-resolver.js';
import { sendTaxii } from './send-taxii.js';
import { prettyParam } from '../http/query-params.js';
import { rememberBounded } from '../bounded-map.js';
import { RequestSlot } from '../request-slot.js';

export type ListingKind = 'objects' | 'manifest' | 'object' | 'versions';
type Kind = ListingKind;

/** The match fields each endpoint supports (TAXII 2.1 sections 5.3, 5.4, 5.6, 5.8). */
const MATCH_FIELDS: Record<Kind, readonly MatchField[]> = {
  objects: ['id', 'type', 'version', 'spec_version'],
  manifest: ['id', 'type', 'version', 'spec_version'],
  object: ['version', 'spec_version'],
  versions: ['spec_version'],
};

/** Only STIX 2.1 objects are stored, and only their latest version. */
function modifiedFilter(filters: ObjectFilters): { none: boolean; modified: string[] | null } {
  if (filters.specVersions && !filters.specVersions.includes('2.1')) return { none: true, modified: null };
  const versions = filters.versions;
  if (!versions || versions.some((v) => v === 'first' || v === 'last' || v === 'all')) return { none: false, modified: null };
  return { none: false, modified: versions.map((v) => normalizeStixTime(v)) };
}

/** A listing as sent: its body and its X-TAXII-Date-Added headers. */
interface RenderedPage {
  body: Buffer;
  headers: Record<string, string>;
}

/** Query parameters that do not shape a listing: the credentials of query-string authentication. */
const NOT_SHAPING = new Set(['key', 'accept']);

/**
 * Each request's page key, worked out once: the fast path asks whether the page is cached, then
 * serves it (the request's path, hence kind, collection and object, and its query do not change).
 */
const pageKeys = new RequestSlot<string>('TAXII page key');

/** URLs whose page key is remembered, and the longest remembered. */
const MAX_REMEMBERED_URLS = 1_000;
const MAX_REMEMBERED_URL_LENGTH = 1_024;

/**
 * JSON of [kind, collection, object or null, [[name, value], ...]] for the query's shaping
 * parameters, the names sorted, written out by hand.
 */
function buildPageKey(query: Record<string, unknown>, kind: Kind, collectionId: string, objectId: string | undefined): string {
  const names: string[] = [];
  for (const name in query) if (!NOT_SHAPING.has(name)) names.push(name);
  names.sort();
  let params = '';
  for (const name of names) params += `${params === '' ? '' : ','}[${JSON.stringify(name)},${JSON.stringify(query[name])}]`;
  return `[${JSON.stringify(kind)},${JSON.stringify(collectionId)},${objectId === undefined ? 'null' : JSON.stringify(objectId)},[${params}]]`;
}

export function createObjectHandlers(deps: { store: Store; config: Config; clock: Clock; logger: Logger; secret: () => Promise<string>; cacheCounter?: CacheCounter }) {
  const { store, config } = deps;
  /** Objects left out of pages because their records no longer give them (ObjectPage.skipped), since start-up. */
  let skippedObjects = 0;
  const skipped = (id: string) => {
    skippedObjects++;
    deps.logger.warn('STIX object left out of a page: its records no longer give it', { id, skippedObjects });
  };
  // Pages depend only on the data (and the request): SIEMs polling the same tail, or walking the same
  // collection, are served from memory until the next import. A page is kept from its second request
  // on, so that a walk through the whole collection, which asks for each page once, keeps none of
  // them (a mirror's memory: bench/README.md).
  const pages = new ResponseCache<RenderedPage>(
    () => store.dataVersion(), deps.clock, { ...config.cache, admitOnRepeat: true }, (page) => page.body.length, deps.cacheCounter,
  );


  /**
   * The page keys of URLs asked for lately: the URL (its query) with the route's kind, collection and
   * object gives the key, and a poller asks for the same URL again and again. The key is then the
   * same string every time, whose hash the cache's map has already worked out.
   */
  const keysByUrl = new Map<string, { kind: Kind; collectionId: string; objectId: string | undefined; key: string }>();

  /** What determines a listing's body: the endpoint, the collection, the object, and the query's shaping parameters. */
  function pageKey(req: Request, kind: Kind, collection: CollectionConfig, objectId: string | undefined): string {
    let key = pageKeys.get(req);
    if (key !== undefined) return key;
    const url = req.url;
    const known = keysByUrl.get(url);
    if (known !== undefined && known.kind === kind && known.collectionId === collection.id && known.objectId === objectId) key = known.key;
    else {
      key = buildPageKey(req.query as Record<string, unknown>, kind, collection.id, objectId);
      if (url.length <= MAX_REMEMBERED_URL_LENGTH) rememberBounded(keysByUrl, MAX_REMEMBERED_URLS, url, { kind, collectionId: collection.id, objectId, key });
    }
    pageKeys.set(req, key);
    return key;
  }

  const RENDER: Record<Kind, (result: PageResult, pretty: boolean) => string> = {
    objects: (page, pretty) => envelopeJson(page, pretty, config.taxii.emptyObjectsList),
    object: (page, pretty) => envelopeJson(page, pretty, config.taxii.emptyObjectsList),
    manifest: manifestJson,
    versions: versionsJson,
  };

  /** Sends the listing: at once when its page is cached (no promise), else when it is built. */
  function respond(req: Request, res: Response, kind: Kind, objectId?: string): MaybePromise<void> {
    const key = pageKey(req, kind, getCollection(res), objectId);
    const hit = pages.peek(key);
    if (hit !== undefined) return sendTaxii(res, 200, hit.body, hit.headers);
    return pages
      .get(key, async () => {
        const result = await listPage(req, res, kind, objectId);
        return { body: Buffer.from(RENDER[kind](result, prettyParam(req)), 'utf8'), headers: dateAddedHeaders(result.items) };
      })
      .then((page) => sendTaxii(res, 200, page!.body, page!.headers));
  }

  async function listPage(req: Request, res: Response, kind: Kind, objectId?: string): Promise<PageResult> {
    const collection = getCollection(res);
    // The resource is checked before the parameters (docs/interface.md section 9.5: 404 comes before 400).
    if (objectId !== undefined && !(await store.collectionHasObject(collection, objectId))) {
      throw new NotFoundError(`No object ${objectId} in collection ${collection.id}.`);
    }
    const query = parseListingQuery(req.query as Record<string, unknown>, MATCH_FIELDS[kind], config.taxii.maxLimit);
    const scope = `${collection.id}/${kind}${objectId ? `/${objectId}` : ''}`;
    const secret = await deps.secret();
    // A `next` token carries the filters of the walk's first request: they win over re-sent ones.
    const position = query.next === null ? null : decodeNext(secret, query.next, scope);
    const filters = position?.filters ?? query.filters;
    // The page size is the other way round: the client chooses it per request (TAXII 2.1 section
    // 3.4), so a `limit` sent with `next` wins and is carried on; without one, the token's limit
    // holds (capped again, should taxii.maxLimit have shrunk since it was issued), and a token too
    // old to carry one walks on at the default.
    const limit = query.limit ?? Math.min(position?.limit ?? config.taxii.defaultLimit, config.taxii.maxLimit);
    const { none, modified } = modifiedFilter(filters);
    if (none) return { items: [], more: false, next: null };
    const { items, more, last, skipped: left } = await store.listCollectionObjects({
      collection,
      ...(objectId !== undefined ? { objectId } : {}),
      after: position ? { dateAdded: position.dateAdded, id: position.id } : null,
      addedAfter: filters.addedAfter,
      ids: filters.ids,
      types: filters.types,
      modified,
      limit,
      withBody: kind === 'objects' || kind === 'object',
    });
    for (const id of left) skipped(id);
    // The position is the last object listed (ObjectPage.last), so an object left out cannot move the walk.
    const next = more && last ? encodeNext(secret, { scope, dateAdded: last.dateAdded, id: last.id, filters, limit }) : null;
    return { items, more, next };
  }

  return {
    /**
     * Serves a listing (`objectId` for an object's endpoints): GET .../objects/ (TAXII 2.1 section
     * 5.4), .../manifest/ (5.3), .../objects/{object_id}/ (5.6), .../objects/{object_id}/versions/ (5.8).
     */
    serve: respond,
    /** Whether `serve` would find the listing's body cached now (the fast path's question); counts nothing. */
    isCached: (req: Request, kind: Kind, collection: CollectionConfig, objectId?: string) => pages.has(pageKey(req, kind, collection, objectId)),
  };
}
