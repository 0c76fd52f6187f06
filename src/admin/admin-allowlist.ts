// The operator API's allowlist routes (docs/interface.md section 13): GET lists both origins, POST adds an entry or dry-runs it, DELETE
// removes a run-time entry; the JSON body of POST is read here, for these routes only.
import type { Request, RequestHandler } from 'express';
import { BadRequestError } from '../errors.js';
import { sendJson } from '../http/send-json.js';
import { getAdminKey } from './admin-auth.js';
import { createJsonBody, jsonFields } from './json-body.js';
import { checkedReason, type OperatorAllowlist } from './operator-allowlist.js';

const FIELDS = ['entry', 'reason', 'dryRun'];
const SHAPE = '{"entry": "...", "reason": "...", "dryRun": false}';

/** Reads POST allowlist's JSON body, for that route alone. */
export const jsonBody = createJsonBody(SHAPE);

interface AllowlistBody {
  entry: string;
  reason: string;
  dryRun: boolean;
}

/** The fields of POST allowlist, each wrong one named. */
function allowlistBody(req: Request): AllowlistBody {
  const fields = jsonFields(req, SHAPE, FIELDS);
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
