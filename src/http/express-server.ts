// node:http request and response classes whose instances are born with an Express app's prototypes.
import { IncomingMessage, ServerResponse } from 'node:http';
import type { Express } from 'express';

export interface MessageClasses {
  IncomingMessage: typeof IncomingMessage;
  ServerResponse: typeof ServerResponse;
}

/**
 * On every request Express swaps the prototypes of node's request and response for its own
 * (`Object.setPrototypeOf(req, app.request)` in `app.handle`). V8 then moves both objects to new,
 * slower shapes, and node:http's code runs slower on them for the rest of the request.
 *
 * These subclasses take over the app's `request` and `response` objects (their members are copied
 * onto the subclass prototypes, which then stand in for them), so node builds every request and
 * response with the prototype Express is about to give it and the swap changes nothing (what that
 * saves per request: bench/README.md).
 *
 * Call it once per app, before serving; a server built without the classes still works, with
 * Express swapping prototypes as usual.
 */
export function expressMessageClasses(app: Express): MessageClasses {
  class Request extends IncomingMessage {}
  class Response extends ServerResponse {}
  const take = (key: 'request' | 'response', prototype: object) => {
    const current = app[key] as object;
    Object.defineProperties(prototype, Object.getOwnPropertyDescriptors(current));
    Object.setPrototypeOf(prototype, Object.getPrototypeOf(current));
    (app as unknown as Record<typeof key, object>)[key] = prototype;
  };
  take('request', Request.prototype);
  take('response', Response.prototype);
  return { IncomingMessage: Request, ServerResponse: Response as unknown as typeof ServerResponse };
}
