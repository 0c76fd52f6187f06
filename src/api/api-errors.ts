// Renders every error of the lookup API as `{"error": "..."}` (docs/interface.md section 6); 5xx bodies never carry internals.
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { AppError, NotFoundError } from '../errors.js';
import { clientStatusOf } from '../http/client-status.js';
import { requestPath } from '../http/request-log.js';
import type { Logger } from '../logger.js';
import { sendJson } from '../http/send-json.js';
import { createStoreUnavailableMapper } from '../http/store-unavailable.js';

export const notFoundRoute: RequestHandler = (_req, _res, next) => next(new NotFoundError('Not found.'));

export function createApiErrorRenderer(logger: Logger): ErrorRequestHandler {
  const storeUnavailable = createStoreUnavailableMapper(logger);
  return (thrown, req, res, _next) => {
    const error: unknown = storeUnavailable(thrown, res) ?? thrown;
    if (error instanceof AppError) {
      res.set(error.headers);
      sendJson(res, { error: error.message }, false, error.status);
      return;
    }
    const clientStatus = clientStatusOf(error);
    if (clientStatus !== undefined) {
      sendJson(res, { error: 'Bad request.' }, false, clientStatus);
      return;
    }
    logger.error('unhandled error', { method: req.method, path: requestPath(req), error: error instanceof Error ? error.stack : String(error) });
    sendJson(res, { error: 'Internal server error.' }, false, 500);
  };
}
