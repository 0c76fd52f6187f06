// The TAXII plan gate, in one place: `all` reads everything; other plans only the free test collection.
import type { Request, RequestHandler } from 'express';
import type { Config } from '../config.js';
import { ForbiddenError } from '../errors.js';
import { taxiiPlanNames } from '../plans/plan-rules.js';
import { getClient } from '../plans/request-client.js';

const COLLECTION_PATH = /^\/api\/collections\/([^/]+)(?:\/|$)/;

/** The collection a TAXII request names, from its path within the gateway. */
const taxiiCollection = (req: Request) => COLLECTION_PATH.exec(req.path)?.[1];

const titleCase = (name: string) => `${name[0]!.toUpperCase()}${name.slice(1)}`;

/**
 * `collectionOf` names the collection a request reads (undefined: none); the exports, which share
 * this gate, name it by their route's parameter.
 */
export function createPlanGate(config: Config, collectionOf: (req: Request) => string | undefined = taxiiCollection): RequestHandler {
  const freeCollections = new Set(config.collections.filter((c) => c.free).map((c) => c.id));
  const planList = taxiiPlanNames(config).map(titleCase).join(' or ');
  const included = `TAXII access is included in the ${planList} plan${taxiiPlanNames(config).length === 1 ? '' : 's'}`;
  return (req, res, next) => {
    const client = getClient(res);
    const access = client.plan.taxii;
    if (access === 'all') return next();
    const collection = collectionOf(req);
    // DESIGN section 5: the free test collection is readable with any valid key, whatever the plan.
    if (collection !== undefined && freeCollections.has(collection)) return next();
    if (access === 'test') {
      throw new ForbiddenError(`The ${titleCase(client.planName)} plan may read only the free test collection; ${included}.`);
    }
    throw new ForbiddenError(`The ${titleCase(client.planName)} plan does not include TAXII beyond the free test collection; ${included}.`);
  };
}
