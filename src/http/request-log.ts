// Request logging, with the API key redacted from the logged URL (DESIGN section 4).
import type { RequestHandler, Response } from 'express';
import type { Logger } from './logger.js';

/** Query parameters whose values are secrets, matched case-insensitively. */
const SECRET_PARAMS = /^(key|api_?key|token|password)$/i;

/** The URL as logged: secret query values replaced, everything else kept for debugging. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q === -1) return url;
  const parts = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const rawName = eq === -1 ? pair : pair.slice(0, eq);
      let name = rawName;
      try {
        name = decodeURIComponent(rawName.replace(/\+/g, ' '));
      } catch {
        // A malformed escape is logged as written: it cannot hide a secret name.
      }
      return SECRET_PARAMS.test(name) ? `${rawName}=[redacted]` : pair;
    });
  return `${url.slice(0, q)}?${parts.join('&')}`;
}

/**
 * Logs one line per finished request; headers (Authorization among them) are never logged.
 * `keyIdOf` names the API key the request was served for (null without one): who the client is
 * belongs to the surfaces' authentication, which builds on this folder, not the other way round.
 */
export function createRequestLog(logger: Logger, keyIdOf: (res: Response) => string | null): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      logger.info('request', {
        method: req.method,
        url: redactUrl(req.originalUrl),
        status: res.statusCode,
        ms: Number((process.hrtime.bigint() - started) / 1000n) / 1000,
        client: keyIdOf(res),
        ip: req.ip,
      });
    });
    next();
  };
}
