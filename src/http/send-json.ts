// The one place lookup responses are serialized: compact, or 2-space indented with pretty=1.
import type { Response } from 'express';
import { takeDeferredHeaders } from './header-list.js';

export function sendJson(res: Response, body: unknown, pretty: boolean, status = 200): void {
  sendJsonText(res, serialize(body, pretty), status);
}

/** Sends an already serialized JSON body (from the response cache: UTF-8 bytes, encoded once). */
export function sendJsonText(res: Response, body: string | Buffer, status = 200): void {
  sendBytes(res, status, 'application/json; charset=utf-8', typeof body === 'string' ? Buffer.from(body, 'utf8') : body);
}

/**
 * Sends a finished body with its exact Content-Type, straight through node:http rather than
 * Express's `res.send`, which would look the type up again on every request. HEAD gets the headers
 * only (node:http). A conditional request is still answered as `res.send` would: 304 when Express
 * finds it fresh (these responses carry no validators, so only `If-None-Match: *` is). The 304 goes
 * without a Content-Type (RFC 9110 section 15.4.5) unless one was set before: the TAXII router sets
 * its media type up front, which every TAXII response must carry (docs/interface.md section 9.3). Headers the fast
 * path gathered for the response (http/header-list.ts) are written with it in one go.
 */
export function sendBytes(res: Response, status: number, contentType: string, body: Buffer): void {
  let waiting = takeDeferredHeaders(res);
  res.statusCode = status;
  const headers = res.req.headers;
  if (headers['if-none-match'] !== undefined || headers['if-modified-since'] !== undefined) {
    // Express's freshness check reads the response's validators: the headers go on it first.
    waiting?.moveTo(res);
    waiting = undefined;
    if (res.req.fresh) {
      res.statusCode = 304;
      res.end();
      return;
    }
  }
  if (waiting) {
    // The fast path's headers, with these two, written in one go (http/header-list.ts).
    waiting.setHeader('Content-Type', contentType);
    waiting.setHeader('Content-Length', body.length);
    waiting.writeHead(res, status);
    res.end(body);
    return;
  }
  res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Length', body.length);
  res.end(body);
}

/** Compact JSON, or indented by 2 spaces with `pretty=1`: for lookup and TAXII bodies alike. */
export function serialize(body: unknown, pretty: boolean): string {
  return pretty ? JSON.stringify(body, null, 2) : JSON.stringify(body);
}
