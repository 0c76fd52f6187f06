// node:http request and response classes whose instances are born with an Express app's own prototypes.
import { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Express } from 'express';

export interface MessageClasses {
  IncomingMessage: typeof IncomingMessage;
  ServerResponse: typeof ServerResponse;
}

/** node's constructors as plain functions (they are: node:http's own subclasses call them so). */
const NodeRequest = IncomingMessage as unknown as { call(self: object, socket: Socket): void };
const NodeResponse = ServerResponse as unknown as { call(self: object, req: IncomingMessage, options?: object): void };

/**
 * On every request Express sets the prototypes of node's request and response to its app's
 * `request` and `response` objects (`Object.setPrototypeOf` in `app.handle`). Setting a prototype
 * moves an object to a new, slower shape, and node:http's code runs slower on it for the rest of
 * the request. These constructors run node's own, on objects whose prototypes are the app's
 * `request` and `response` from the start: Express's step then finds the prototype it would set and
 * changes nothing. The app's objects are left as Express made them (what this saves per request:
 * bench/README.md, "HTTP").
 *
 * The fast path (fast-path.ts) answers only requests built so, since it reads them through
 * Express's own getters (`req.query`, `req.ip`, `req.secure`, `req.fresh`). A server built without
 * these classes still works, every request through Express.
 */
export function expressMessageClasses(app: Express): MessageClasses {
  function Request(this: object, socket: Socket) {
    NodeRequest.call(this, socket);
  }
  Request.prototype = app.request;
  // node's two arguments named, not spread: no array per response.
  function Response(this: object, req: IncomingMessage, options?: object) {
    NodeResponse.call(this, req, options);
  }
  Response.prototype = app.response;
  return { IncomingMessage: Request as unknown as typeof IncomingMessage, ServerResponse: Response as unknown as typeof ServerResponse };
}
