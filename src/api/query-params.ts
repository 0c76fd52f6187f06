// Parsing of lookup API query parameters: each bad value is a 400 naming the parameter.
import type { Request } from 'express';
import { BadRequestError } from '../errors.js';

/** A parameter given once, or undefined; a repeated parameter is ambiguous and refused. */
export function singleParam(req: Request, name: string): string | undefined {
  const value = (req.query as Record<string, unknown>)[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new BadRequestError(`Parameter "${name}" must be given once.`);
  return value;
}

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

/** `pretty` (spec 4.1): 0 or 1; anything else is a 400 (DESIGN section 4). */
export function prettyParam(req: Request): boolean {
  const value = singleParam(req, 'pretty');
  if (value === undefined || value === '0') return false;
  if (value === '1') return true;
  throw new BadRequestError('Parameter "pretty" must be 0 or 1.');
}
