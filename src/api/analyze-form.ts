// What `POST /api/analyze.php` sends (docs/observations.md, "Submissions for analysis"): an HTML form body,
// as the pulsedive client sends it, read for this path alone, and its key, which may be in the body
// or in the query string. Every other route of the lookup API reads no body.
import express, { type Request, type Response } from 'express';
import type { KeyAuthenticator } from '../auth/authenticate-key.js';
import { AppError, BadRequestError, UnauthorizedError } from '../errors.js';
import type { MaybePromise } from '../maybe-promise.js';
import type { Client } from '../plans/plan-rules.js';

/** The largest form read: a value to analyze is a few kilobytes at most, base64 adds a third. */
export const MAX_FORM_BYTES = 64 * 1024;
/** The most fields a form may have: the pulsedive client sends six. */
const MAX_FORM_FIELDS = 100;
const FORM_TYPE = 'application/x-www-form-urlencoded';

/** The analyze route's path under /api, as Express matches it (any case, a trailing slash allowed). */
export const ANALYZE_PATH = '/analyze.php';
export const isAnalyzePath = (path: string) => /^\/analyze\.php\/?$/i.test(path);

export const KEY_REQUIRED = 'An API key is required for analyze.php: send it as the "key" field of the form, or as the "key" query parameter.';

const parseForm = express.urlencoded({ extended: false, limit: MAX_FORM_BYTES, parameterLimit: MAX_FORM_FIELDS, type: FORM_TYPE });

/** body-parser's refusal as an error that says what was wrong with the request (its own messages describe the parser). */
function formError(error: unknown): unknown {
  const { status, type } = error as { status?: number; type?: string };
  if (type === 'parameters.too.many') return new AppError(413, 'bad_request', `The form has more than ${MAX_FORM_FIELDS} fields.`);
  if (status === 413) return new AppError(413, 'bad_request', `The body is larger than ${MAX_FORM_BYTES} bytes.`);
  if (status === 415) return new AppError(415, 'bad_request', `The body must be ${FORM_TYPE} in UTF-8.`);
  if (typeof status === 'number' && status >= 400 && status < 500) return new BadRequestError('The form body could not be read.');
  return error;
}

/**
 * Reads a POST's form into `req.body`: another media type is a 415, a body over MAX_FORM_BYTES a 413.
 * A POST with no body (and no Content-Type) has none: its fields may all come in the query string.
 * Other methods have no body to read.
 */
export function readAnalysisForm(req: Request, res: Response): MaybePromise<void> {
  if (req.method !== 'POST') return;
  if (req.headers['content-type'] !== undefined && !req.is(FORM_TYPE)) {
    throw new AppError(415, 'bad_request', `The body must be a form (Content-Type: ${FORM_TYPE}), as the pulsedive client sends it: ioc, enrich, probe, key.`);
  }
  return new Promise((resolve, reject) => parseForm(req, res, (error?: unknown) => (error === undefined ? resolve() : reject(formError(error)))));
}

/**
 * A field of analyze.php, from the form body or the query string, given once: both at once, or
 * twice in one, is a 400 naming it (docs/interface.md section 1, "Repeated parameters").
 */
export function analysisParam(req: Request, name: string): string | undefined {
  const body = req.body as Record<string, unknown> | undefined;
  const fromBody = body !== undefined && body !== null && Object.hasOwn(body, name) ? body[name] : undefined;
  const fromQuery = (req.query as Record<string, unknown>)[name];
  if (fromBody !== undefined && fromQuery !== undefined) throw new BadRequestError(`Parameter "${name}" is given twice: in the body and in the query string.`);
  const value = fromBody ?? fromQuery;
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new BadRequestError(`Parameter "${name}" must be given once.`);
  return value;
}

/** `pretty` of analyze.php, from the body or the query: 0 or 1. */
export function analysisPretty(req: Request): boolean {
  const value = analysisParam(req, 'pretty');
  if (value === undefined || value === '0') return false;
  if (value === '1') return true;
  throw new BadRequestError('Parameter "pretty" must be 0 or 1.');
}

/**
 * The client of an analyze.php request: its key is required (a submission is read back only by the
 * key that made it), from the form or the query; none is a 401, as a malformed, unknown or revoked one is.
 */
export function createAnalysisClientResolver(authenticate: KeyAuthenticator): (req: Request) => MaybePromise<Client> {
  return (req) => {
    const key = analysisParam(req, 'key');
    if (key === undefined || key === '') throw new UnauthorizedError(KEY_REQUIRED);
    return authenticate({ address: req.ip, key });
  };
}
