// The one place TAXII bodies are sent: with the TAXII media type exactly as written.
import type { Response } from 'express';
import { deferredHeaders } from '../http/header-list.js';
import { sendBytes } from '../http/send-json.js';
import { TAXII_MEDIA_TYPE } from './media-type.js';

/**
 * Sends a TAXII body with the media type exactly as written (no `; charset=utf-8` appended):
 * some TAXII clients compare the Content-Type with the media type verbatim.
 */
export function sendTaxii(res: Response, status: number, body: string | Buffer, headers: Record<string, string> = {}): void {
  const target = deferredHeaders(res) ?? res;
  for (const name in headers) target.setHeader(name, headers[name]!);
  sendBytes(res, status, TAXII_MEDIA_TYPE, typeof body === 'string' ? Buffer.from(body, 'utf8') : body);
}
