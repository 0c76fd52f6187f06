// Resolves the lookup API's optional `key` query parameter into the request's client.
import type { RequestHandler } from 'express';
import type { Config } from '../config.js';
import { singleParam } from '../http/query-params.js';
import { anonymousClient } from '../plans/plan-rules.js';
import { setClient } from '../plans/request-client.js';
import type { KeyAuthenticator } from './authenticate-key.js';

/** No key: the anonymous plan, limited by client IP (spec 5.2). A key that is given must be valid. */
export function createLookupClientResolver(authenticate: KeyAuthenticator, config: Config): RequestHandler {
  const anonymous = anonymousClient(config);
  return async (req, res, next) => {
    const key = singleParam(req, 'key');
    setClient(res, key === undefined ? anonymous : await authenticate({ address: req.ip, key }));
    next();
  };
}
