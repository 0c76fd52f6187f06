// The bodies of a page of listed objects: stored ones as they are, the others projected from their records.
import type { ListedObject } from '../store/queries/stix-queries.js';
import { renderStoredVersion } from '../stix/project-records.js';

/**
 * Fills in the bodies the store left to render (indicators and relationships, rendered on read
 * from the records read with the page). An object whose records no longer give it is left out of
 * the page and reported to `skipped`: a page is never lost to one object. Imports keep objects and
 * records in step, so a skip is a fault of the store to log and count, not of the request.
 */
export function withBodies(items: readonly ListedObject[], skipped: (id: string) => void): ListedObject[] {
  const out: ListedObject[] = [];
  for (const item of items) {
    if (item.rendered === undefined) {
      out.push(item);
      continue;
    }
    const body = renderStoredVersion(item.id, item.rendered.modified, item.rendered.record);
    if (body === undefined) skipped(item.id);
    else out.push({ ...item, body });
  }
  return out;
}
