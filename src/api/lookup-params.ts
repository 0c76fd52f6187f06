// Parsing of the lookup API's own query parameters: each bad value is a 400 naming the parameter.
import type { Request } from 'express';
import { BadRequestError } from '../errors.js';
import { singleParam } from '../http/query-params.js';

export function requiredParam(req: Request, name: string): string {
  const value = singleParam(req, name);
  if (value === undefined || value.trim() === '') throw new BadRequestError(`Parameter "${name}" is required.`);
  return value;
}

const ID = /^[1-9][0-9]{0,15}$/;

/** A positive integer identifier such as tid or fid. */
export function idParam(req: Request, name: string): number {
  const value = requiredParam(req, name).trim();
  if (!ID.test(value) || !Number.isSafeInteger(Number(value))) {
    throw new BadRequestError(`Parameter "${name}" must be a positive integer.`);
  }
  return Number(value);
}

/** `page` (spec 4.3): a non-negative integer; omitted means 0. */
export function pageParam(req: Request): number {
  const value = singleParam(req, 'page');
  if (value === undefined) return 0;
  if (!/^(0|[1-9][0-9]{0,8})$/.test(value.trim())) throw new BadRequestError('Parameter "page" must be a non-negative integer.');
  return Number(value.trim());
}
