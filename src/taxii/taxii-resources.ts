// The TAXII discovery, API root and collection resources (TAXII 2.1 sections 4.1, 4.2, 5.1, 5.2): pure builders.
import type { CollectionConfig, Config } from '../config.js';
import { STIX_MEDIA_TYPE, TAXII_MEDIA_TYPE } from './media-type.js';

export const API_ROOT_PATH = '/taxii2/api/';

/** Discovery lists the one API root by its absolute path (no host, no query string: keys stay out). */
export function discoveryResource(config: Config) {
  return {
    title: config.taxii.title,
    description: config.taxii.description,
    contact: config.taxii.contact,
    default: API_ROOT_PATH,
    api_roots: [API_ROOT_PATH],
  };
}

export function apiRootResource(config: Config) {
  return {
    title: config.taxii.apiRoot.title,
    description: config.taxii.apiRoot.description,
    versions: [TAXII_MEDIA_TYPE],
    max_content_length: config.taxii.maxContentLength,
  };
}

/** Collections are read-only views: can_write is always false. */
export function collectionResource(collection: CollectionConfig) {
  return {
    id: collection.id,
    title: collection.title,
    ...(collection.description ? { description: collection.description } : {}),
    ...(collection.alias ? { alias: collection.alias } : {}),
    can_read: true,
    can_write: false,
    media_types: [STIX_MEDIA_TYPE],
  };
}

export function collectionsResource(config: Config) {
  return { collections: config.collections.map(collectionResource) };
}
