// The one place lookup responses are serialized: compact, or 2-space indented with pretty=1.
import type { Response } from 'express';

export function sendJson(res: Response, body: unknown, pretty: boolean, status = 200): void {
  sendJsonText(res, pretty ? JSON.stringify(body, null, 2) : JSON.stringify(body), status);
}

/** Sends an already serialized JSON body (from the response cache: UTF-8 bytes, encoded once). */
export function sendJsonText(res: Response, body: string | Buffer, status = 200): void {
  res.status(status).set('Content-Type', 'application/json; charset=utf-8').send(body);
}

export function serialize(body: unknown, pretty: boolean): string {
  return pretty ? JSON.stringify(body, null, 2) : JSON.stringify(body);
}
