// 405 for methods a route does not serve, with the Allow header (RFC 9110 section 15.5.6).
import type { RequestHandler } from 'express';
import { MethodNotAllowedError } from '../errors.js';

export function methodNotAllowed(allow: readonly string[]): RequestHandler {
  return (req, _res, next) => next(new MethodNotAllowedError(req.method, allow));
}
