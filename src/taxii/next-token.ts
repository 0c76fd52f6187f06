// Stateless `next` tokens: the keyset position, the filters and the page size, signed so no client can forge one.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { BadRequestError } from '../errors.js';

/** The filters a page walk keeps from its first request (TAXII 2.1 section 3.4). */
export interface ObjectFilters {
  addedAfter: number | null;
  ids: string[] | null;
  types: string[] | null;
  versions: string[] | null;
  specVersions: string[] | null;
}

export interface NextPosition {
  /** Which listing the token continues: the objects or the manifest of one collection (or one object). */
  scope: string;
  /** date_added (microseconds) and id of the last item served. */
  dateAdded: number;
  id: string;
  filters: ObjectFilters;
  /**
   * The page size the walk was served with, so a client that follows `next` without re-sending
   * `limit` keeps it. Null only in tokens issued before tokens carried it (eight fields).
   */
  limit: number | null;
}

const SIGNATURE_BYTES = 16;
const INVALID = 'Parameter "next" is not a token this server issued for this request.';

function sign(secret: string, payload: string): Buffer {
  return createHmac('sha256', secret).update(payload).digest().subarray(0, SIGNATURE_BYTES);
}

export function encodeNext(secret: string, position: NextPosition): string {
  const { scope, dateAdded, id, filters, limit } = position;
  const fields = [scope, dateAdded, id, filters.addedAfter, filters.ids, filters.types, filters.versions, filters.specVersions, limit];
  const payload = Buffer.from(JSON.stringify(fields)).toString('base64url');
  return `${payload}.${sign(secret, payload).toString('base64url')}`;
}

const stringList = (value: unknown): value is string[] | null =>
  value === null || (Array.isArray(value) && value.every((v) => typeof v === 'string'));

const pageSize = (value: unknown): value is number | null => value === null || (Number.isSafeInteger(value) && (value as number) > 0);

/**
 * Tokens issued before they carried the limit have eight fields; pollers may hold one mid-walk
 * across an upgrade, so it still continues the walk (at the default limit) rather than failing.
 */
const FIELDS_WITHOUT_LIMIT = 8;
const FIELDS = 9;

/** Verifies the signature, then the shape; any failure (forged, truncated, other scope) is a 400. */
export function decodeNext(secret: string, token: string, scope: string): NextPosition {
  const dot = token.indexOf('.');
  if (token.length > 8192 || dot <= 0) throw new BadRequestError(INVALID);
  const payload = token.slice(0, dot);
  const given = Buffer.from(token.slice(dot + 1), 'base64url');
  const expected = sign(secret, payload);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new BadRequestError(INVALID);
  let fields: unknown;
  try {
    fields = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw new BadRequestError(INVALID);
  }
  if (!Array.isArray(fields) || (fields.length !== FIELDS && fields.length !== FIELDS_WITHOUT_LIMIT)) throw new BadRequestError(INVALID);
  const [tokenScope, dateAdded, id, addedAfter, ids, types, versions, specVersions, limit = null] = fields as unknown[];
  if (
    tokenScope !== scope ||
    typeof dateAdded !== 'number' ||
    typeof id !== 'string' ||
    !(addedAfter === null || typeof addedAfter === 'number') ||
    !stringList(ids) ||
    !stringList(types) ||
    !stringList(versions) ||
    !stringList(specVersions) ||
    !pageSize(limit)
  ) {
    throw new BadRequestError(INVALID);
  }
  return { scope, dateAdded, id, filters: { addedAfter, ids, types, versions, specVersions }, limit };
}
