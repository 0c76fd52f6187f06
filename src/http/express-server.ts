// node:http request and response classes whose instances inherit from an Express app's own prototypes.
import { IncomingMessage, ServerResponse } from 'node:http';
import type { Express } from 'express';

export interface MessageClasses {
  IncomingMessage: typeof IncomingMessage;
  ServerResponse: typeof ServerResponse;
}

/** node's ServerResponse as node calls it: the request, and options (highWaterMark, ...) its types leave out. */
const NodeResponse = ServerResponse as unknown as new (req: IncomingMessage, options?: object) => ServerResponse;

/**
 * Subclasses of node's request and response whose prototypes inherit from the app's `request` and
 * `response` objects, which are left as Express made them. The fast path (fast-path.ts) answers on
 * these objects as node built them, reading them through Express's own getters (`req.query`,
 * `req.ip`, `req.secure`, `req.fresh`) found up the chain: Express's step of setting a request's
 * prototype (`Object.setPrototypeOf` in `app.handle`), which moves an object to a new, slower shape
 * for the rest of the request, is then taken only by the requests Express answers. Subclasses, not
 * plain constructor functions: V8 sizes a class's instances for the properties its whole chain of
 * constructors sets, and a plain function's for its own body's only (what this saves per request:
 * bench/README.md, "One route table: hot reads before and after").
 *
 * A server built without these classes still works, every request through Express.
 */
export function expressMessageClasses(app: Express): MessageClasses {
  class Request extends IncomingMessage {}
  Object.setPrototypeOf(Request.prototype, app.request);
  class Response extends NodeResponse {
    // node's two arguments named, not spread: no array per response.
    constructor(req: IncomingMessage, options?: object) {
      super(req, options);
    }
  }
  Object.setPrototypeOf(Response.prototype, app.response);
  return { IncomingMessage: Request, ServerResponse: Response as unknown as typeof ServerResponse };
}
