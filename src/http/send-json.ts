// The one place lookup responses are serialized: compact, or 2-space indented with pretty=1.
import type { Response } from 'express';

export function sendJson(res: Response, body: unknown, pretty: boolean, status = 200): void {
  res.status(status).type('application/json; charset=utf-8').send(pretty ? JSON.stringify(body, null, 2) : JSON.stringify(body));
}
