// A configured collection by the name an export is asked for: its id, as TAXII names it, or its alias.
import type { CollectionConfig } from '../config.js';

/**
 * The collection whose id is `name`, else the first whose `alias` is `name`; undefined for neither.
 * GET /export/{name}.txt and `threatgate export NAME` both find their collection here, so that a
 * name one accepts the other accepts too. Ids are UUIDs and aliases lower-case words, so an id
 * always wins over an alias that happened to spell another collection's id.
 */
export function collectionByName(collections: readonly CollectionConfig[], name: string): CollectionConfig | undefined {
  return collections.find((c) => c.id === name) ?? collections.find((c) => c.alias === name);
}
