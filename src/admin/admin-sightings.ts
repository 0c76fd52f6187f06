// The operator API's sightings (docs/observations.md, "On the operator API"): POST records one under the
// admin key, GET lists an indicator's or a threat's latest, a page at a time; the JSON body of POST is read
// here, for that route only.
import type { Request, Response } from 'express';
import type { Clock } from '../clock.js';
import { BadRequestError, NotFoundError } from '../errors.js';
import { singleParam } from '../http/query-params.js';
import { sendJson } from '../http/send-json.js';
import { ObservationRefused } from '../observations/observation-refused.js';
import { recordSighting, sightedIndicator } from '../observations/record-sighting.js';
import type { SightingInput } from '../observations/sighting-input.js';
import type { SightingTarget } from '../store/contract/observations.js';
import type { Store } from '../store/contract/store.js';
import { getAdminKey } from './admin-auth.js';
import { idParam } from './admin-params.js';
import { createJsonBody, jsonFields } from './json-body.js';

const FIELDS = ['value', 'tid', 'note', 'at', 'count'];
const SHAPE = '{"value": "..." or "tid": N, "note": "...", "at": "2026-03-02T08:00:00Z", "count": 1}';

/** Reads POST sightings' JSON body, for that route alone. */
export const sightingBody = createJsonBody(SHAPE);

export const DEFAULT_SIGHTINGS = 20;
/** The most sightings one page holds. */
export const MAX_SIGHTINGS = 100;

/** The body's fields as a SightingInput; a field of the wrong JSON type is a 400 naming it (the values themselves are recordSighting's to check). */
function sightingInput(req: Request): SightingInput {
  const { value, tid, note = null, at = null, count } = jsonFields(req, SHAPE, FIELDS);
  const wrong = (field: string, what: string) => new BadRequestError(`Field "${field}" must be ${what}.`);
  if (value !== undefined && typeof value !== 'string') throw wrong('value', 'a string: the value that was seen, as pasted');
  if (tid !== undefined && typeof tid !== 'number') throw wrong('tid', 'a positive whole number: the threat that was seen');
  if (note !== null && typeof note !== 'string') throw wrong('note', 'a string or null');
  if (at !== null && typeof at !== 'string') throw wrong('at', 'a string (a timestamp) or null');
  if (count !== undefined && typeof count !== 'number') throw wrong('count', 'a whole number');
  return { ...(value !== undefined ? { value } : {}), ...(tid !== undefined ? { tid } : {}), ...(count !== undefined ? { count } : {}), note, at };
}

/** `limit`: 1 to MAX_SIGHTINGS, DEFAULT_SIGHTINGS when absent. */
function limitParam(req: Request): number {
  const text = singleParam(req, 'limit');
  if (text === undefined) return DEFAULT_SIGHTINGS;
  const limit = /^[0-9]{1,4}$/.test(text.trim()) ? Number(text.trim()) : NaN;
  if (!(limit >= 1 && limit <= MAX_SIGHTINGS)) throw new BadRequestError(`Parameter "limit" must be a whole number from 1 to ${MAX_SIGHTINGS}.`);
  return limit;
}

/** What GET lists the sightings of: exactly one of `value`, `iid` and `tid`, each checked to name something stored. */
async function listedTarget(req: Request, store: Store): Promise<SightingTarget> {
  const given = ['value', 'iid', 'tid'].filter((name) => singleParam(req, name) !== undefined);
  if (given.length !== 1) throw new BadRequestError('Give exactly one of the parameters "value", "iid" and "tid".');
  if (given[0] === 'value') {
    try {
      return { iid: (await sightedIndicator(store, singleParam(req, 'value')!)).iid };
    } catch (error) {
      if (error instanceof ObservationRefused) throw error.status === 404 ? new NotFoundError('Indicator not found.') : new BadRequestError(`Parameter "value" ${error.reason}.`);
      throw error;
    }
  }
  const target: SightingTarget = given[0] === 'iid' ? { iid: idParam(req, 'iid') } : { tid: idParam(req, 'tid') };
  return target;
}

export function createSightingHandlers(store: Store, clock: Clock) {
  return {
    /** POST: 201 with the sighting as stored. */
    async record(req: Request, res: Response): Promise<void> {
      const key = getAdminKey(res);
      const sighting = await recordSighting(store, sightingInput(req), { keyId: key.keyId, label: key.label }, clock);
      sendJson(res, sighting, false, 201);
    },
    /** GET: the target, its counts, a page of its sightings newest first, and the next page's path while more are older. */
    async list(req: Request, res: Response): Promise<void> {
      const target = await listedTarget(req, store);
      const limit = limitParam(req);
      const before = singleParam(req, 'before') === undefined ? undefined : idParam(req, 'before');
      const counts = await store.observationCounts(target);
      if (counts === undefined) throw new NotFoundError('iid' in target ? 'Indicator not found.' : 'Threat not found.');
      // One more than the page: whether an older page follows, without counting them all.
      const rows = await store.listSightings(target, limit + 1, before);
      const sightings = rows.slice(0, limit);
      const last = sightings.at(-1);
      const which = 'iid' in target ? `iid=${target.iid}` : `tid=${target.tid}`;
      const next = rows.length > limit && last !== undefined ? `/admin/api/sightings?${which}&limit=${limit}&before=${last.id}` : null;
      sendJson(res, { target, counts, sightings, next }, false);
    },
  };
}
