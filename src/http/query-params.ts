// Query parameters both surfaces read the same way: a parameter given once, and `pretty`.
import type { Request } from 'express';
import { BadRequestError } from '../errors.js';

/** A parameter given once, or undefined; a repeated parameter is ambiguous and refused. */
export function singleParam(req: Request, name: string): string | undefined {
  const value = (req.query as Record<string, unknown>)[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new BadRequestError(`Parameter "${name}" must be given once.`);
  return value;
}

/** `pretty` (spec 4.1): 0 or 1; anything else is a 400 (docs/interface.md section 4). */
export function prettyParam(req: Request): boolean {
  const value = singleParam(req, 'pretty');
  if (value === undefined || value === '0') return false;
  if (value === '1') return true;
  throw new BadRequestError('Parameter "pretty" must be 0 or 1.');
}
