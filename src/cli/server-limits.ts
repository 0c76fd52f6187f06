// The HTTP server's limits on connections and slow clients (config `server`; docs/deployment.md, "Connections and slow clients"), applied by every process that serves.
import type { Server, ServerOptions } from 'node:http';
import type { Socket } from 'node:net';
import { ipKeyGenerator } from 'express-rate-limit';
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
 * An address's open connections when the config names no `server.maxConnectionsPerAddress`: a
 * twentieth of `maxConnections` (500 of 10,000), so that one address cannot refuse everyone else,
 * and no fewer than 16, so that a few browsers behind one NAT (six connections each) still fit a
 * small `maxConnections` (docs/deployment.md, "Connections and slow clients").
 */
export function connectionsPerAddress(limits: ServerLimits): number {
  return limits.maxConnectionsPerAddress ?? Math.max(16, Math.ceil(limits.maxConnections / 20));
}

export interface ConnectionCaps {
  /** Open connections in all (`server.maxConnections`). */
  max: number;
  /** Open connections from one address (connectionsPerAddress). */
  perAddress: number;
  /**
   * Whether the peer at this address is a proxy that `trustProxy` trusts (Express's `trust proxy fn`
   * at hop 0): every client behind it arrives from its address, so it is held to `max` alone.
   */
  isProxy?: (address: string) => boolean;
}

/**
 * Closes every connection past `max` open ones, or past `perAddress` open ones from its address,
 * at once, before a byte of it is read: so that a flood of idle or slow sockets cannot use up the
 * process's file descriptors, nor one address every slot. IPv6 peers are counted per /56, as the
 * rate limits count them (docs/interface.md 7.3), so that one host cannot rotate through its prefix.
 *
 * A single process uses `server.maxConnections`: node closes the extra socket before building it. A
 * node:cluster worker cannot: there node hands a connection it refuses back to the primary, which
 * offers it to the next worker, and so on, round and round while every worker is full (the socket
 * held open in the primary all the while). A worker takes every connection and closes the extra
 * ones itself. Both caps are per process, as `maxConnections` is: the primary deals connections to
 * the workers in turn, so an address holds the same share of every worker's slots.
 */
export function capConnections(server: Server, caps: ConnectionCaps, inClusterWorker: boolean): void {
  if (!inClusterWorker) server.maxConnections = caps.max;
  let open = 0;
  const fromAddress = new Map<string, number>();
  const isProxy = caps.isProxy ?? (() => false);
  server.on('connection', (socket: Socket) => {
    if (inClusterWorker && open >= caps.max) {
      socket.destroy();
      return;
    }
    const address = socket.remoteAddress;
    // No address: the peer has already gone.
    if (address === undefined) {
      socket.destroy();
      return;
    }
    const key = isProxy(address) ? undefined : ipKeyGenerator(address);
    const held = key === undefined ? 0 : (fromAddress.get(key) ?? 0);
    if (held >= caps.perAddress) {
      socket.destroy();
      return;
    }
    open++;
    if (key !== undefined) fromAddress.set(key, held + 1);
    socket.once('close', () => {
      open--;
      if (key === undefined) return;
      const left = fromAddress.get(key)! - 1;
      if (left === 0) fromAddress.delete(key);
      else fromAddress.set(key, left);
    });
  });
}
