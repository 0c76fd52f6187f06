// The console's error pages: every error of a console route as an HTML page naming what went wrong, never internals.
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { AppError, NotFoundError } from '../errors.js';
import { clientStatusOf } from '../http/client-status.js';
import { createStoreUnavailableMapper } from '../http/store-unavailable.js';
import type { Logger } from '../logger.js';
import { CONSOLE_PATHS, type PageContext } from './console-deps.js';
import { Notice, Page } from './layout.js';
import { sendPage, setPageHeaders } from './render.js';

export const consoleNotFound: RequestHandler = (_req, _res, next) => next(new NotFoundError('There is no such page in the console.'));

const TITLES: Record<number, string> = {
  400: 'Bad request',
  403: 'Refused',
  404: 'Not found',
  405: 'Method not allowed',
  409: 'Busy',
  413: 'Too large',
  429: 'Too many attempts',
  503: 'Unavailable',
};

/** Words for a client error Express or the body parser raised, whose own message may name internals. */
const CLIENT_MESSAGES: Record<number, string> = {
  404: 'There is no such page in the console.',
  413: 'The form was larger than the console accepts.',
  415: 'The form was not sent as a form (application/x-www-form-urlencoded).',
};

export function createConsoleErrorRenderer(logger: Logger): ErrorRequestHandler {
  const storeUnavailable = createStoreUnavailableMapper(logger);
  return (thrown, req, res, _next) => {
    const error: unknown = storeUnavailable(thrown, res) ?? thrown;
    let status = 500;
    let message = 'Something went wrong on the server; it has been logged. Try again, and if it persists, see the server log.';
    if (error instanceof AppError) {
      res.set(error.headers);
      status = error.status;
      message = error.message;
    } else {
      const clientStatus = clientStatusOf(error);
      if (clientStatus !== undefined) {
        status = clientStatus;
        message = CLIENT_MESSAGES[clientStatus] ?? 'The request could not be read.';
      } else {
        logger.error('unhandled error', { method: req.method, path: req.path, error: error instanceof Error ? error.stack : String(error) });
      }
    }
    // An asset's error (a file not there) skips the router's page headers: an error page sets them itself.
    setPageHeaders(res);
    const ctx = res.locals.page as PageContext | undefined;
    sendPage(
      res,
      <Page title={TITLES[status] ?? (status >= 500 ? 'Server error' : 'Request refused')} ctx={ctx}>
        <Notice kind="error">{message}</Notice>
        <p>
          <a href={ctx === undefined ? CONSOLE_PATHS.login : CONSOLE_PATHS.feeds}>{ctx === undefined ? 'Go to the login page' : 'Back to the feeds'}</a>
        </p>
      </Page>,
      status,
    );
  };
}
