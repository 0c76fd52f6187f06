// The admin API's parameters: each bad value is a 400 naming it (the lookup API's rule, docs/interface.md section 6, kept on the admin surface).
import type { Request } from 'express';
import { BadRequestError } from '../errors.js';
import { singleParam } from '../http/query-params.js';

const ID = /^[1-9][0-9]{0,15}$/;

/** The `{fid}` of a feed's path: a positive whole number. */
export function fidParam(req: Request): number {
  const text = req.params.fid;
  if (typeof text !== 'string' || !ID.test(text) || !Number.isSafeInteger(Number(text))) {
    throw new BadRequestError('The feed id in the path must be a positive whole number.');
  }
  return Number(text);
}

export const DEFAULT_RUNS = 20;
/** The most runs one request reads (a feed keeps `health.keepRuns` of them). */
export const MAX_RUNS = 1000;

/** `limit` of a feed's runs: 1 to MAX_RUNS, DEFAULT_RUNS when absent. */
export function runsLimitParam(req: Request): number {
  const text = singleParam(req, 'limit');
  if (text === undefined) return DEFAULT_RUNS;
  const limit = /^[0-9]{1,7}$/.test(text.trim()) ? Number(text.trim()) : NaN;
  if (!(limit >= 1 && limit <= MAX_RUNS)) throw new BadRequestError(`Parameter "limit" must be a whole number from 1 to ${MAX_RUNS}.`);
  return limit;
}

/** `value` of `why`: the value as written anywhere (it is normalized as pulls normalize it). */
export function valueParam(req: Request): string {
  const text = singleParam(req, 'value');
  if (text === undefined || text.trim() === '') throw new BadRequestError('Parameter "value" is required: the value to explain (an address, domain, URL, hash, ...).');
  return text.trim();
}

/** A record's id in the query (`iid`, `tid`, a sighting's `before`): a positive whole number. */
export function idParam(req: Request, name: string): number {
  const text = singleParam(req, name)?.trim();
  if (text === undefined || !ID.test(text) || !Number.isSafeInteger(Number(text))) throw new BadRequestError(`Parameter "${name}" must be a positive whole number.`);
  return Number(text);
}
