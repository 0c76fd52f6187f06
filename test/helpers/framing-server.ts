// A raw TCP server that answers HTTP the way real servers frame a body (node:http cannot send most of these): close-delimited HTTP/1.0, lengths, chunks, resets and short bodies, for every transport's tests.
import { once } from 'node:events';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { gzipSync } from 'node:zlib';

/**
 * How a body is framed (RFC 9112 section 6.3, "Message Body Length"):
 * - `http10-close`: an HTTP/1.0 status line, no Content-Length; the body ends when the server closes,
 *   as `python3 -m http.server` answers;
 * - `close-with-length`: HTTP/1.1, `Connection: close` and a Content-Length;
 * - `close-without-length`: HTTP/1.1, `Connection: close`, no length: the body ends at the close;
 * - `chunked-then-close`: HTTP/1.1 chunked, `Connection: close`, the connection closed after the last chunk;
 * - `reset-mid-body`: HTTP/1.0 close-delimited, a part of the body, then a TCP reset (not a clean close);
 * - `short-length`: a Content-Length larger than what is sent, then a clean close.
 */
export type Framing = 'http10-close' | 'close-with-length' | 'close-without-length' | 'chunked-then-close' | 'reset-mid-body' | 'short-length';

/** The framings whose body arrives whole: a pull reads it as any other. */
export const COMPLETE_FRAMINGS: readonly Framing[] = ['http10-close', 'close-with-length', 'close-without-length', 'chunked-then-close'];
/** The framings whose body is cut short: a pull fails, naming why. */
export const BROKEN_FRAMINGS: readonly Framing[] = ['reset-mid-body', 'short-length'];

export interface FramedRequest {
  method: string;
  /** The path with its query string, as the client asked for it. */
  url: string;
  path: string;
  headers: IncomingHttpHeaders;
}

export interface FramedAnswer {
  status?: number;
  headers?: Record<string, string>;
  body: string | Buffer;
}

export interface FramingOptions {
  /** The framing of every answer, or of each request's. */
  framing: Framing | ((request: FramedRequest) => Framing);
  /** What each request is answered with. */
  answer: (request: FramedRequest) => FramedAnswer | Promise<FramedAnswer>;
  /** Send the body gzipped, with `Content-Encoding: gzip`. */
  gzip?: boolean;
  /** Writes the body is sent in (default 8), with `pauseMs` between them (default 2), so the client sees it arrive faster than it reads. */
  writes?: number;
  pauseMs?: number;
}

export interface FramingServer {
  /** `http://127.0.0.1:PORT` */
  readonly base: string;
  /** Every request read so far, oldest first. */
  readonly requests: FramedRequest[];
  close(): Promise<void>;
}

const HEAD_END = Buffer.from('\r\n\r\n');
/** How long a reset waits after the last write it follows: time for a loaded client to read the body so far. */
const RESET_AFTER_MS = 300;
/** A request head larger than this is not a client of ours. */
const MAX_HEAD = 64 * 1024;

/** The request line and headers, once the blank line after them has arrived; undefined when the client left first. */
function readHead(socket: Socket): Promise<FramedRequest | undefined> {
  return new Promise((resolve) => {
    let buffered = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      const end = buffered.indexOf(HEAD_END);
      if (end === -1 && buffered.length < MAX_HEAD) return;
      socket.off('data', onData);
      socket.off('close', onClose);
      // What follows the head (a GET has no body) is read and dropped, so the client is never held up writing.
      socket.on('data', () => undefined);
      const [line = '', ...fields] = buffered.subarray(0, Math.max(end, 0)).toString('latin1').split('\r\n');
      const [method = 'GET', url = '/'] = line.split(' ');
      const headers: IncomingHttpHeaders = {};
      for (const field of fields) {
        const colon = field.indexOf(':');
        if (colon > 0) headers[field.slice(0, colon).trim().toLowerCase()] = field.slice(colon + 1).trim();
      }
      resolve({ method, url, path: new URL(url, 'http://x').pathname, headers });
    };
    const onClose = () => resolve(undefined);
    socket.on('data', onData);
    socket.once('close', onClose);
  });
}

/** `body` cut into `count` nearly equal pieces (at least one, none empty unless the body is). */
function pieces(body: Buffer, count: number): Buffer[] {
  const size = Math.max(1, Math.ceil(body.length / count));
  const parts: Buffer[] = [];
  for (let at = 0; at < body.length; at += size) parts.push(body.subarray(at, at + size));
  return parts.length === 0 ? [body] : parts;
}

const REASONS: Record<number, string> = { 200: 'OK', 301: 'Moved Permanently', 302: 'Found', 304: 'Not Modified', 404: 'Not Found', 429: 'Too Many Requests', 500: 'Internal Server Error' };

async function answerOn(socket: Socket, request: FramedRequest, framing: Framing, answer: FramedAnswer, options: FramingOptions): Promise<void> {
  const status = answer.status ?? 200;
  const plain = Buffer.isBuffer(answer.body) ? answer.body : Buffer.from(answer.body, 'utf8');
  const body = options.gzip ? gzipSync(plain) : plain;
  const http10 = framing === 'http10-close' || framing === 'reset-mid-body';
  const head = [`HTTP/${http10 ? '1.0' : '1.1'} ${status} ${REASONS[status] ?? 'Status'}`, 'Server: framing-server'];
  for (const [name, value] of Object.entries(answer.headers ?? {})) head.push(`${name}: ${value}`);
  if (options.gzip) head.push('Content-Encoding: gzip');
  if (!http10) head.push('Connection: close');
  if (framing === 'close-with-length') head.push(`Content-Length: ${body.length}`);
  if (framing === 'short-length') head.push(`Content-Length: ${body.length + 4096}`);
  if (framing === 'chunked-then-close') head.push('Transfer-Encoding: chunked');
  socket.write(`${head.join('\r\n')}\r\n\r\n`);
  const parts = request.method === 'HEAD' ? [] : pieces(body, options.writes ?? 8);
  // The reset comes after about half of the body: the client has read some of it and waits for the rest.
  const sent = framing === 'reset-mid-body' ? parts.slice(0, Math.max(1, Math.floor(parts.length / 2))) : parts;
  for (const part of sent) {
    if (socket.destroyed) return;
    socket.write(framing === 'chunked-then-close' ? Buffer.concat([Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from('\r\n')]) : part);
    await delay(options.pauseMs ?? 2);
  }
  if (framing === 'reset-mid-body') {
    // The reset waits until the client has had time to read what was sent. A reset that reaches a
    // Node client while the last data is still unread is reported as a clean end: libuv reads that
    // data, and on the poll's hang-up after a short read it reports the end of the stream without
    // reading again, so the connection's error is never read. No client can tell that from a
    // complete close-delimited body, so the tests send the reset once the body so far is read.
    if (socket.writableLength > 0) await Promise.race([once(socket, 'drain'), once(socket, 'close')]);
    await delay(RESET_AFTER_MS);
    if (!socket.destroyed) socket.resetAndDestroy();
    return;
  }
  if (framing === 'chunked-then-close') socket.write('0\r\n\r\n');
  socket.end();
}

export async function startFramingServer(options: FramingOptions): Promise<FramingServer> {
  const requests: FramedRequest[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    // A client that gives up (its timeout, its size limit) resets the connection: nothing to report.
    socket.on('error', () => undefined);
    void (async () => {
      const request = await readHead(socket);
      if (request === undefined) return socket.destroy();
      requests.push(request);
      const framing = typeof options.framing === 'function' ? options.framing(request) : options.framing;
      await answerOn(socket, request, framing, await options.answer(request), options);
    })().catch(() => socket.destroy());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Hop-by-hop and framing headers (RFC 9110 section 7.6.1): the framing server writes its own. */
const NOT_FORWARDED = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'content-encoding', 'date']);

/**
 * An `answer` that asks another server (a threatgate upstream) the same request and hands its answer
 * back whole, so that server's pages reach the client under the framing chosen here.
 */
export function proxiedTo(base: string): FramingOptions['answer'] {
  return (request) =>
    new Promise((resolve, reject) => {
      const { host: _host, connection: _connection, 'accept-encoding': _encoding, ...headers } = request.headers;
      const outgoing = httpRequest(new URL(request.url, base), { method: request.method, headers, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const kept: Record<string, string> = {};
          for (const [name, value] of Object.entries(res.headers)) {
            if (!NOT_FORWARDED.has(name) && value !== undefined) kept[name] = Array.isArray(value) ? value.join(', ') : value;
          }
          resolve({ status: res.statusCode ?? 502, headers: kept, body: Buffer.concat(chunks) });
        });
      });
      outgoing.on('error', reject);
      outgoing.end();
    });
}
