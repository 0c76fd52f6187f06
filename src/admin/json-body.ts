// The JSON bodies of the operator API's POST routes (docs/interface.md section 13), read by the routes
// that take one and no others: each way a body can be wrong is a 4xx that says so and shows its shape.
import express, { type Request, type RequestHandler } from 'express';
import { AppError, BadRequestError } from '../errors.js';

/** The largest body a route reads: an allowlist entry or a sighting with its note, with room to spare. */
export const MAX_BODY_BYTES = 16 * 1024;

const parseJson = express.json({ limit: MAX_BODY_BYTES });

/**
 * Reads a JSON body; `shape` is the body the route takes, shown in the messages. body-parser's own
 * errors carry a status, but their messages describe the parser, not the request.
 */
export function createJsonBody(shape: string): RequestHandler {
  return (req, res, next) => {
    parseJson(req, res, (error?: unknown) => {
      if (error === undefined) return next();
      const { status, type } = error as { status?: number; type?: string };
      if (status === 413) return next(new AppError(413, 'bad_request', `The body is larger than ${MAX_BODY_BYTES} bytes.`));
      if (status === 415) return next(new AppError(415, 'bad_request', 'The body must be JSON in UTF-8.'));
      if (type === 'entity.parse.failed') return next(new BadRequestError(`The body is not valid JSON; send ${shape}.`));
      next(error);
    });
  };
}

/**
 * The parsed body as an object of fields: a body declared as something else than JSON is a 415, one
 * declared as nothing (or none at all), or JSON that is no object, a 400; a field not in `fields` a 400 naming it.
 */
export function jsonFields(req: Request, shape: string, fields: readonly string[]): Record<string, unknown> {
  if (req.headers['content-type'] !== undefined && !req.is('application/json')) {
    throw new AppError(415, 'bad_request', `The body must be JSON (Content-Type: application/json): ${shape}.`);
  }
  const body: unknown = req.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new BadRequestError(`The body must be a JSON object, sent with Content-Type: application/json: ${shape}.`);
  }
  const given = body as Record<string, unknown>;
  const unknown = Object.keys(given).find((name) => !fields.includes(name));
  if (unknown !== undefined) throw new BadRequestError(`Field "${unknown}" is not known; the fields are ${fields.slice(0, -1).join(', ')} and ${fields.at(-1)}.`);
  return given;
}
