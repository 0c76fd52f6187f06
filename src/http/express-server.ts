// node:http request and response classes whose instances are born with an Express app's prototypes.
import { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Express } from 'express';
import { addEmptySlots } from '../request-slot.js';

export interface MessageClasses {
  IncomingMessage: typeof IncomingMessage;
  ServerResponse: typeof ServerResponse;
}

/** node's ServerResponse as node calls it: the request, and options (highWaterMark, ...) its types leave out. */
const NodeResponse = ServerResponse as unknown as new (req: IncomingMessage, options?: object) => ServerResponse;

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
 * Both are born with their request slots too (request-slot.ts): the values a request carries
 * between its parts have their place from the start, not added as it is served.
 *
 * Call it once per app, before serving; a server built without the classes still works, with
 * Express swapping prototypes as usual.
 */
export function expressMessageClasses(app: Express): MessageClasses {
  // Born with their request slots (request-slot.ts), so that no property is added to them later.
  class Request extends IncomingMessage {
    constructor(socket: Socket) {
      super(socket);
      addEmptySlots(this);
    }
  }
  class Response extends NodeResponse {
    // node's two arguments named, not spread: no array per response.
    constructor(req: IncomingMessage, options?: object) {
      super(req, options);
      addEmptySlots(this);
    }
  }
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
