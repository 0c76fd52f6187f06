// Resolves the lookup API's optional `key` query parameter into the request's client.
import type { Request } from 'express';
import type { Config } from '../config.js';
import { singleParam } from '../http/query-params.js';
import { anonymousClient, type Client } from '../plans/plan-rules.js';
import type { MaybePromise } from '../maybe-promise.js';
import type { KeyAuthenticator } from './authenticate-key.js';

/** No key: the anonymous plan, limited by client IP (docs/interface.md section 7.1). A key that is given must be valid. */
export function createLookupClientResolver(authenticate: KeyAuthenticator, config: Config): (req: Request) => MaybePromise<Client> {
  const anonymous = anonymousClient(config);
  // A repeated `key` throws its 400 here, at once.
  return (req) => {
    const key = singleParam(req, 'key');
    return key === undefined ? anonymous : authenticate({ address: req.ip, key });
  };
}
