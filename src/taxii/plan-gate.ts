// The TAXII plan gate, in one place: `all` reads everything; other plans only the free test collection.
import type { Config } from '../config.js';
import { ForbiddenError } from '../errors.js';
import { taxiiPlanNames, type Client } from '../plans/plan-rules.js';

const COLLECTION_PATH = /^\/api\/collections\/([^/]+)(?:\/|$)/;

/** The collection a TAXII request names, from its path within the gateway (`/api/collections/{id}/...`). */
export const taxiiCollectionOf = (path: string) => COLLECTION_PATH.exec(path)?.[1];

const titleCase = (name: string) => `${name[0]!.toUpperCase()}${name.slice(1)}`;

/** Passes a client to what it may read, or throws a 403 naming the plans that include it. */
export type PlanGate = (client: Client, collectionId: string | undefined) => void;

/**
 * `collectionId` is the collection a request reads (undefined: none): TAXII takes it from the path
 * (taxiiCollectionOf), the exports, which share this gate, from their route's parameter.
 */
export function createPlanGate(config: Config): PlanGate {
  const freeCollections = new Set(config.collections.filter((c) => c.free).map((c) => c.id));
  const planList = taxiiPlanNames(config).map(titleCase).join(' or ');
  const included = `TAXII access is included in the ${planList} plan${taxiiPlanNames(config).length === 1 ? '' : 's'}`;
  return (client, collectionId) => {
    const access = client.plan.taxii;
    if (access === 'all') return;
    // docs/interface.md section 8: the free test collection is readable with any valid key, whatever the plan.
    if (collectionId !== undefined && freeCollections.has(collectionId)) return;
    if (access === 'test') {
      throw new ForbiddenError(`The ${titleCase(client.planName)} plan may read only the free test collection; ${included}.`);
    }
    throw new ForbiddenError(`The ${titleCase(client.planName)} plan does not include TAXII beyond the free test collection; ${included}.`);
  };
}
