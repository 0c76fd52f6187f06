// Renders every error of the TAXII gateway as the TAXII error resource (TAXII 2.1 section 3.6.1), with the TAXII media type.
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { AppError, NotFoundError } from '../errors.js';
import { clientStatusOf } from '../http/client-status.js';
import { requestPath } from '../http/request-log.js';
import type { Logger } from '../logger.js';
import { createStoreUnavailableMapper } from '../http/store-unavailable.js';
import { sendTaxii } from './send-taxii.js';

const TITLES: Record<number, string> = {
  400: 'Bad request',
  401: 'Authentication required',
  403: 'Forbidden',
  404: 'Not found',
  405: 'Method not allowed',
  406: 'Not acceptable',
  429: 'Too many requests',
  500: 'Internal server error',
  503: 'Service unavailable',
};

function errorBody(status: number, code: string, description: string) {
  return { title: TITLES[status] ?? 'Error', description, error_code: code, http_status: String(status) };
}

export const taxiiNotFoundRoute: RequestHandler = (_req, _res, next) => next(new NotFoundError('No TAXII resource at this path.'));

export function createTaxiiErrorRenderer(logger: Logger): ErrorRequestHandler {
  const storeUnavailable = createStoreUnavailableMapper(logger);
  return (thrown, req, res, _next) => {
    const error: unknown = storeUnavailable(thrown, res) ?? thrown;
    if (error instanceof AppError) {
      sendTaxii(res, error.status, JSON.stringify(errorBody(error.status, error.code, error.message)), { ...error.headers });
      return;
    }
    const clientStatus = clientStatusOf(error);
    if (clientStatus !== undefined) {
      sendTaxii(res, clientStatus, JSON.stringify(errorBody(clientStatus, 'bad_request', 'The request could not be understood.')));
      return;
    }
    logger.error('unhandled error', { method: req.method, path: requestPath(req), error: error instanceof Error ? error.stack : String(error) });
    sendTaxii(res, 500, JSON.stringify(errorBody(500, 'internal', 'The server could not complete the request.')));
  };
}
