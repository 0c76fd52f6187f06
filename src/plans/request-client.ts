// The client a request is served for (key id and plan): set by each surface's authenticator, read by the
// rate limiter, the plan checks and the request log.
import type { Response } from 'express';
import { RequestSlot } from '../request-slot.js';
import type { Client } from './plan-rules.js';

/** On the response, as res.locals is, but typed: no reader casts, and the value goes with the response. */
const clients = new RequestSlot<Client>('client');

export function setClient(res: Response, client: Client): void {
  clients.set(res, client);
}

/** The client, or undefined while authentication has not resolved one (or refused the request). */
export function findClient(res: Response): Client | undefined {
  return clients.get(res);
}

/** The client of a request past authentication; reading it earlier is a mistake in the route table. */
export function getClient(res: Response): Client {
  const client = clients.get(res);
  if (!client) throw new Error('the client was read before authentication resolved it');
  return client;
}
