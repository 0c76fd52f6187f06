// The HTTP server's limits on connections and slow clients (config `server`, issue 26), applied by every process that serves.
import type { Server, ServerOptions } from 'node:http';
import type { Socket } from 'node:net';
import type { Config } from '../config.js';

export type ServerLimits = Config['server'];

/**
 * Node checks `headersTimeout` and `requestTimeout` on a timer, every `connectionsCheckingInterval`
 * (30 s by default): a client that sends its headers slowly, or nothing at all, was held for up to
 * `headersTimeout` + 30 s. Checked every second, it is answered 408 and closed within a second of
 * its time. A check walks the list of connections in C++; once a second costs nothing to speak of.
 */
const CONNECTIONS_CHECK_MS = 1000;

/**
 * How long a kept-alive connection may sit idle between requests: longer than common load balancer
 * idle timeouts (60 s), so that the balancer closes first and never sends a request on a connection
 * the server is closing. Node times a request from its first byte, so an idle connection is not cut
 * by `headersTimeout`; it does count against `maxConnections`.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;

/** The createServer options that carry the limits (config.ts checks headersTimeout <= requestTimeout, as Node requires). */
export function serverTimeouts(limits: ServerLimits): ServerOptions {
  return {
    headersTimeout: limits.headersTimeoutSeconds * 1000,
    requestTimeout: limits.requestTimeoutSeconds * 1000,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    connectionsCheckingInterval: CONNECTIONS_CHECK_MS,
  };
}

/**
 * Closes every connection past `max` open ones at once, so that a flood of idle or slow sockets
 * cannot use up the process's file descriptors.
 *
 * A single process uses `server.maxConnections`: node closes the extra socket before building it. A
 * node:cluster worker cannot: there node hands a connection it refuses back to the primary, which
 * offers it to the next worker, and so on, round and round while every worker is full (the socket
 * held open in the primary all the while). A worker takes every connection and closes the extra
 * ones itself.
 */
export function capConnections(server: Server, max: number, inClusterWorker: boolean): void {
  if (!inClusterWorker) {
    server.maxConnections = max;
    return;
  }
  let open = 0;
  server.on('connection', (socket: Socket) => {
    if (open >= max) {
      socket.destroy();
      return;
    }
    open++;
    socket.once('close', () => open--);
  });
}
