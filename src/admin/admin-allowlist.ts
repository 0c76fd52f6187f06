// The operator API's allowlist routes (docs/interface.md section 13): GET lists both origins, POST adds an entry or dry-runs it, DELETE
// removes a run-time entry; the JSON body of POST is read here, for these routes only.
import express, { type Request, type RequestHandler } from 'express';
import { AppError, BadRequestError } from '../errors.js';
import { sendJson } from '../http/send-json.js';
import { getAdminKey } from './admin-auth.js';
import { checkedReason, type OperatorAllowlist } from './operator-allowlist.js';

/** The largest body POST allowlist reads: an entry (2048 characters at most) and a reason, with room to spare. */
export const MAX_BODY_BYTES = 16 * 1024;
const FIELDS = ['entry', 'reason', 'dryRun'];
const SHAPE = '{"entry": "...", "reason": "...", "dryRun": false}';

const parseJson = express.json({ limit: MAX_BODY_BYTES });

/**
 * Reads a JSON body, each way it can be wrong a 4xx that says so: body-parser's own errors carry a
 * status, but their messages describe the parser, not the request.
 */
export const jsonBody: RequestHandler = (req, res, next) => {
  parseJson(req, res, (error?: unknown) => {
    if (error === undefined) return next();
    const { status, type } = error as { status?: number; type?: string };
    if (status === 413) return next(new AppError(413, 'bad_request', `The body is larger than ${MAX_BODY_BYTES} bytes.`));
    if (status === 415) return next(new AppError(415, 'bad_request', 'The body must be JSON in UTF-8.'));
    if (type === 'entity.parse.failed') return next(new BadRequestError(`The body is not valid JSON; send ${SHAPE}.`));
    next(error);
  });
};

interface AllowlistBody {
  entry: string;
  reason: string;
  dryRun: boolean;
}

/** The fields of POST allowlist, each wrong one named. */
function allowlistBody(req: Request): AllowlistBody {
  // A body declared as something else is a 415; one declared as nothing, or none at all, the 400 below.
  if (req.headers['content-type'] !== undefined && !req.is('application/json')) {
    throw new AppError(415, 'bad_request', `The body must be JSON (Content-Type: application/json): ${SHAPE}.`);
  }
  const body: unknown = req.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new BadRequestError(`The body must be a JSON object, sent with Content-Type: application/json: ${SHAPE}.`);
  }
  const fields = body as Record<string, unknown>;
  const unknown = Object.keys(fields).find((name) => !FIELDS.includes(name));
  if (unknown !== undefined) throw new BadRequestError(`Field "${unknown}" is not known; the fields are entry, reason and dryRun.`);
  const { entry, reason = '', dryRun = false } = fields;
  if (typeof entry !== 'string') throw new BadRequestError('Field "entry" is required: a string (an address, a CIDR block, a domain, or an exact value).');
  if (typeof reason !== 'string') throw new BadRequestError('Field "reason" must be a string.');
  if (typeof dryRun !== 'boolean') throw new BadRequestError('Field "dryRun" must be true or false.');
  return { entry, reason: checkedReason(reason), dryRun };
}

export function createAllowlistHandlers(allowlist: OperatorAllowlist): { list: RequestHandler; add: RequestHandler; remove: RequestHandler } {
  return {
    list: async (_req, res) => sendJson(res, { entries: await allowlist.list() }, false),
    add: async (req, res) => {
      const body = allowlistBody(req);
      if (body.dryRun) {
        const preview = await allowlist.preview(body.entry);
        sendJson(res, { entry: preview.entry, dryRun: true, count: preview.count, sample: preview.sample }, false);
        return;
      }
      const added = await allowlist.add({ entry: body.entry, reason: body.reason, addedBy: getAdminKey(res).keyId });
      res.setHeader('Location', `/admin/api/allowlist/${encodeURIComponent(added.entry)}`);
      sendJson(res, { entry: added.entry, added: true, retired: added.retired }, false, 201);
    },
    remove: async (req, res) => {
      // `*entry`: the entry's segments, so that a CIDR block's `/` may come encoded (%2F) or not.
      const segments = req.params.entry as unknown as string[];
      await allowlist.remove(segments.join('/'));
      res.status(204).end();
    },
  };
}
