// One GET of a pull over node:http or node:https (docs/sources.md, "How a pull fetches"): its status, headers and decoded body, where whatever the connection does later is that body's error, never the process's.
import { request as httpRequest, type Agent, type ClientRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { CONNECT_SIGNAL, type GuardedRequestArgs } from './guarded-agent.js';
import { decodedBody } from './content-coding.js';

export interface HttpResponse {
  status: number;
  /** As fetch gave them: names lowered, repeated fields kept, values read as Latin-1. */
  headers: Headers;
  /**
   * The body with its content codings undone. Read to its end, it is the whole body (a
   * close-delimited one included, RFC 9112 section 6.3 item 8); when the connection ends it sooner
   * (a reset, a short Content-Length, a malformed chunk) it throws an error whose `code` says why.
   * Leaving it unread to the end closes the connection.
   */
  body: AsyncIterable<Uint8Array>;
  /** Done with the response without reading its body: a small one is drained so its connection may serve the next request. */
  discard(): void;
}

export interface GetOptions {
  agent: Agent;
  /** Ends the request, its connection attempt and its body. */
  signal: AbortSignal;
}

/** A body this small is read and dropped rather than its connection closed (a redirect's or an error's page). */
const DRAIN_BYTES = 64 * 1024;
/** A request on a kept-alive connection that the server closed as it was reused fails with one of these before any answer. */
const STALE_CONNECTION = new Set(['ECONNRESET', 'EPIPE']);

/**
 * GETs `url` with `headers` and resolves once the response's headers are in. A request that found its
 * kept-alive connection closed under it is made once more on a new one: it never reached the server,
 * and a GET may be repeated (RFC 9110 section 9.2.2; RFC 9112 section 9.3.1).
 */
export async function httpGet(url: URL, headers: Headers, options: GetOptions): Promise<HttpResponse> {
  try {
    return await getOnce(url, headers, options);
  } catch (error) {
    const { code, reusedSocket } = error as { code?: unknown; reusedSocket?: boolean };
    if (reusedSocket !== true || typeof code !== 'string' || !STALE_CONNECTION.has(code) || options.signal.aborted) throw error;
    return getOnce(url, headers, options);
  }
}

function getOnce(url: URL, headers: Headers, { agent, signal }: GetOptions): Promise<HttpResponse> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(abortReason(signal));
    const args: GuardedRequestArgs = { method: 'GET', agent, headers: plainHeaders(headers), [CONNECT_SIGNAL]: signal };
    const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, args);
    /** The first error the request or its connection reported before its body was complete: why the body ended, when it did early. */
    let failure: Error | undefined;
    let response: IncomingMessage | undefined;
    // Listened to for the request's whole life: an error after the response (a reset, a parse error in
    // the body) is the body's to report, and an 'error' no one hears would be thrown at the process.
    request.on('error', (error: Error) => {
      // A close-delimited body is "complete" at a reset too (the parser ends it at any end of the
      // connection): only a clean close completes it, so its connection's error always counts.
      if (response === undefined || !response.complete || closeDelimited(response)) failure ??= error;
      reject(Object.assign(error, { reusedSocket: request.reusedSocket }));
    });
    const onAbort = () => request.destroy(abortReason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    request.once('close', () => signal.removeEventListener('abort', onAbort));
    request.once('response', (answer: IncomingMessage) => {
      response = answer;
      answer.on('error', (error: Error) => void (failure ??= error));
      resolve({
        status: answer.statusCode ?? 0,
        headers: headersOf(answer.rawHeaders),
        body: bodyOf(answer, request, () => failure),
        discard: () => discard(answer),
      });
    });
    request.end();
  });
}

async function* bodyOf(response: IncomingMessage, request: ClientRequest, failure: () => Error | undefined): AsyncGenerator<Uint8Array> {
  try {
    for await (const chunk of decodedBody(response, response.headers['content-encoding'])) yield chunk as Uint8Array;
  } catch (error) {
    request.destroy();
    // The connection's own error (a parse error, a reset) says more than the "aborted" its response was ended with.
    throw failure() ?? error;
  }
  // Node ends a close-delimited body at a reset as at a clean close, and reports the reset on the
  // request: such a body stopped wherever the reset cut it, so it is no complete body. The reset
  // may be reported a turn after the body's end, and always before the request's `close`: a body
  // that only the connection's end delimits is judged once the request has closed.
  if (closeDelimited(response) && !request.closed) await new Promise<void>((resolve) => request.once('close', () => resolve()));
  const error = failure();
  if (error !== undefined) throw error;
  if (!response.complete) throw Object.assign(new Error('the connection closed before the body ended'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });
}

/** A body that only the end of its connection delimits (RFC 9112 section 6.3 item 8): no length, not chunked. */
function closeDelimited(response: IncomingMessage): boolean {
  return response.headers['content-length'] === undefined && response.headers['transfer-encoding'] === undefined;
}

function discard(response: IncomingMessage): void {
  const length = Number(response.headers['content-length'] ?? Number.NaN);
  if (response.complete || length <= DRAIN_BYTES) response.resume();
  else response.destroy();
}

function plainHeaders(headers: Headers): Record<string, string> {
  const plain: Record<string, string> = {};
  headers.forEach((value, name) => (plain[name] = value));
  return plain;
}

function headersOf(raw: string[]): Headers {
  const headers = new Headers();
  for (let i = 0; i + 1 < raw.length; i += 2) {
    try {
      headers.append(raw[i]!, raw[i + 1]!);
    } catch {
      // A field Headers refuses and Node's parser let through: left out, as fetch would not have given it either.
    }
  }
  return headers;
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : Object.assign(new Error('aborted'), { name: 'AbortError', code: 'ABORT_ERR' });
}
