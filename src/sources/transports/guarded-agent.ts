// The connections pulls make over HTTP (docs/sources.md, "How a pull fetches"): node:http and node:https agents
// whose every connection is checked against the source's reach before it is made, on the resolved address, so a
// DNS answer or a redirect cannot lead a pull into a network its source was not allowed to reach.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { Agent as HttpAgent, type ClientRequest, type ClientRequestArgs } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { connect, isIP, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { ThreatgateError } from '../../errors.js';
import { refusal, type NetworkReach } from './network-policy.js';

/** Resolves a host name to its addresses (every family); tests pass their own to control DNS. */
export type ResolveHost = (hostname: string) => Promise<LookupAddress[]>;

/** A connection the reach does not allow: the error of the request that asked for it. */
export class ConnectionRefused extends ThreatgateError {
  readonly code = 'ECONNREFUSED_BY_POLICY';
}

const systemResolve: ResolveHost = (hostname) =>
  new Promise((resolve, reject) => dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))));

type LookupCallback = (error: Error | null, address: string | LookupAddress[], family?: number) => void;

/** A `lookup` for net.connect that answers only with addresses the reach allows. */
function guardedLookup(reach: NetworkReach, resolveHost: ResolveHost) {
  return (hostname: string, options: { family?: number | string; all?: boolean }, callback: LookupCallback): void => {
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : Number(options.family ?? 0);
    resolveHost(hostname).then(
      (found) => {
        const candidates = family === 4 || family === 6 ? found.filter((a) => a.family === family) : found;
        const allowed = candidates.filter((a) => refusal(a.address, reach) === undefined);
        // Addresses the reach refuses are left out: a host with a public and a private address is reached on the public one.
        if (allowed.length === 0) {
          const first = candidates[0];
          const error = first === undefined ? Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }) : new ConnectionRefused(refusal(first.address, reach));
          callback(error, options.all ? [] : '', 0);
          return;
        }
        if (options.all) callback(null, allowed);
        else callback(null, allowed[0]!.address, allowed[0]!.family);
      },
      (error: Error) => callback(error, options.all ? [] : '', 0),
    );
  };
}

/**
 * Kept-alive connections idle longer than this are closed: under the 5 s a Node server keeps one
 * (server.keepAliveTimeout), so a reused connection is seldom one its server is closing.
 */
const IDLE_MS = 4000;

/**
 * The request option that carries its signal to `createConnection`: Node hands an agent the request's
 * options without `signal`, and a connection attempt must end with the pull, not at the system's
 * connect timeout (minutes, for an address that never answers).
 */
export const CONNECT_SIGNAL = 'threatgateConnectSignal';

export type GuardedRequestArgs = ClientRequestArgs & { [CONNECT_SIGNAL]?: AbortSignal };

type Connected = (error: Error | null, socket?: Socket) => void;

/**
 * A TCP connection for `options` that respects `reach`: an IP literal is checked before connecting, a
 * name is resolved through the guarded lookup, and the connected socket's remote address is checked
 * once more (whatever path led there) before it is handed over, so before a byte is sent.
 */
function guardedConnect(options: GuardedRequestArgs, reach: NetworkReach, resolveHost: ResolveHost, done: Connected): void {
  const host = (options.host ?? options.hostname ?? 'localhost').replace(/^\[(.*)\]$/, '$1');
  const literal = isIP(host) === 0 ? undefined : refusal(host, reach);
  if (literal !== undefined) return done(new ConnectionRefused(literal));
  const signal = options[CONNECT_SIGNAL];
  if (signal?.aborted) return done(abortError(signal));
  const socket = connect({
    host,
    port: Number(options.port),
    lookup: guardedLookup(reach, resolveHost),
    ...(options.family === undefined ? {} : { family: options.family }),
    ...(options.localAddress === undefined ? {} : { localAddress: options.localAddress }),
    keepAlive: true,
    noDelay: true,
  });
  const settle = (error: Error | null) => {
    socket.off('connect', onConnect);
    socket.off('error', settle);
    signal?.removeEventListener('abort', onAbort);
    if (error === null) return done(null, socket);
    socket.destroy();
    done(error);
  };
  const onConnect = () => {
    const remote = socket.remoteAddress;
    const refused = remote === undefined ? 'the connection has no remote address' : refusal(remote, reach);
    settle(refused === undefined ? null : new ConnectionRefused(refused));
  };
  const onAbort = () => settle(abortError(signal!));
  socket.once('connect', onConnect);
  socket.once('error', settle);
  signal?.addEventListener('abort', onAbort, { once: true });
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : Object.assign(new Error('aborted'), { name: 'AbortError', code: 'ABORT_ERR' });
}

/** A kept-alive connection gets the idle timeout (or the server's shorter Keep-Alive hint, RFC 9112 section 9.3). */
function idleTimeout(socket: Duplex): void {
  const hinted = (socket as Socket).timeout ?? 0;
  (socket as Socket).setTimeout(hinted > 0 ? Math.min(hinted, IDLE_MS) : IDLE_MS);
}

/** Plain HTTP: the guarded connection itself. */
class GuardedHttpAgent extends HttpAgent {
  constructor(
    private readonly reach: NetworkReach,
    private readonly resolveHost: ResolveHost,
  ) {
    super({ keepAlive: true, scheduling: 'lifo' });
  }

  override createConnection(options: GuardedRequestArgs, callback: (error: Error | null, socket: Duplex) => void): undefined {
    guardedConnect(options, this.reach, this.resolveHost, (error, socket) => callback(error, socket!));
    return undefined;
  }

  override keepSocketAlive(socket: Duplex): boolean {
    // Node's agent answers whether to keep the socket (@types/node says void).
    const kept = super.keepSocketAlive(socket) as unknown as boolean;
    idleTimeout(socket);
    return kept;
  }

  override reuseSocket(socket: Duplex, request: ClientRequest): void {
    // The idle timeout is for a connection in the pool: a request's own is the pull's signal.
    (socket as Socket).setTimeout(0);
    super.reuseSocket(socket, request);
  }
}

/** HTTPS: TLS over the guarded connection, so not even the handshake starts before the check; SNI and sessions as Node's agent gives them. */
class GuardedHttpsAgent extends HttpsAgent {
  constructor(
    private readonly reach: NetworkReach,
    private readonly resolveHost: ResolveHost,
  ) {
    super({ keepAlive: true, scheduling: 'lifo' });
  }

  override createConnection(options: GuardedRequestArgs, callback: (error: Error | null, socket: Duplex) => void): undefined {
    guardedConnect(options, this.reach, this.resolveHost, (error, socket) => {
      if (error !== null) return callback(error, undefined!);
      // https.Agent's own createConnection is tls.connect with its session cache; given `socket`, it connects over it.
      callback(null, super.createConnection({ ...options, socket } as GuardedRequestArgs)!);
    });
    return undefined;
  }

  override keepSocketAlive(socket: Duplex): boolean {
    const kept = super.keepSocketAlive(socket) as unknown as boolean;
    idleTimeout(socket);
    return kept;
  }

  override reuseSocket(socket: Duplex, request: ClientRequest): void {
    (socket as Socket).setTimeout(0);
    super.reuseSocket(socket, request);
  }
}

/** The agent for `protocol` (`http:` or `https:`) whose every connection respects `reach`. */
export function createGuardedAgent(reach: NetworkReach, protocol: string, resolveHost: ResolveHost = systemResolve): HttpAgent {
  return protocol === 'https:' ? new GuardedHttpsAgent(reach, resolveHost) : new GuardedHttpAgent(reach, resolveHost);
}

/** Agents by reach, protocol (and resolver), kept for the life of the process so that pages of one walk share connections. */
const agents = new WeakMap<ResolveHost, Map<string, HttpAgent>>();

export function agentFor(reach: NetworkReach, protocol: string, resolveHost: ResolveHost = systemResolve): HttpAgent {
  const key = `${protocol}${[...reach.inner].sort().join(',')}`;
  let byReach = agents.get(resolveHost);
  if (byReach === undefined) agents.set(resolveHost, (byReach = new Map()));
  let agent = byReach.get(key);
  if (agent === undefined) byReach.set(key, (agent = createGuardedAgent(reach, protocol, resolveHost)));
  return agent;
}
