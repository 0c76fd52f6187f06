// Parsing of the lookup API's own query parameters: each bad value is a 400 naming the parameter.
import type { Request } from 'express';
import { BadRequestError } from '../errors.js';
import { singleParam } from '../http/query-params.js';
import { pageNumber, recordId } from './lookup-schemas.js';

export function requiredParam(req: Request, name: string): string {
  const value = singleParam(req, name);
  if (value === undefined || value.trim() === '') throw new BadRequestError(`Parameter "${name}" is required.`);
  return value;
}

/** The digits of a whole number, no sign, point, exponent or leading zero; its range is the schema's. */
const WHOLE = /^(0|[1-9][0-9]*)$/;

/** `text` as the number `schema` takes (the range the OpenAPI document gives), or undefined. */
function wholeNumber(text: string, schema: typeof recordId | typeof pageNumber): number | undefined {
  if (!WHOLE.test(text)) return undefined;
  const parsed = schema.safeParse(Number(text));
  return parsed.success ? parsed.data : undefined;
}

/** A positive integer identifier such as tid or fid. */
export function idParam(req: Request, name: string): number {
  const id = wholeNumber(requiredParam(req, name).trim(), recordId);
  if (id === undefined) throw new BadRequestError(`Parameter "${name}" must be a positive integer.`);
  return id;
}

/** `page` (docs/interface.md section 5): a non-negative integer; omitted means 0. */
export function pageParam(req: Request): number {
  const value = singleParam(req, 'page');
  if (value === undefined) return 0;
  const page = wholeNumber(value.trim(), pageNumber);
  if (page === undefined) throw new BadRequestError('Parameter "page" must be a non-negative integer.');
  return page;
}
