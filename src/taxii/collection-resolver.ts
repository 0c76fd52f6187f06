// Resolves the `collectionId` path parameter to a configured collection (TAXII 2.1 section 5), for the handlers after it.
import type { Response } from 'express';
import type { CollectionConfig, Config } from '../config.js';
import { NotFoundError } from '../errors.js';
import { RequestSlot } from '../request-slot.js';

const collections = new RequestSlot<CollectionConfig>('collection');

/** Finds the collection a request names and keeps it for `getCollection`; a 404 when none has that name. */
export type CollectionResolver = (res: Response, name: string) => CollectionConfig;

/**
 * 404 for an id that names no collection on the API root. `find` reads the name another way: the
 * exports also take a collection's alias (export/collection-by-name.ts); TAXII paths take ids.
 */
export function createCollectionResolver(config: Config, find?: (name: string) => CollectionConfig | undefined): CollectionResolver {
  const byId = new Map(config.collections.map((c) => [c.id, c]));
  const lookup = find ?? ((name: string) => byId.get(name));
  return (res, name) => {
    const collection = lookup(name);
    if (!collection) throw new NotFoundError(`No collection ${name} on this API root.`);
    collections.set(res, collection);
    return collection;
  };
}

/** The collection of a request that passed the resolver; reading it elsewhere is a mistake in the route table. */
export function getCollection(res: Response): CollectionConfig {
  const collection = collections.get(res);
  if (!collection) throw new Error('the collection was read before the collection resolver ran');
  return collection;
}
