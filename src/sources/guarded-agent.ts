// The HTTP connection pool pulls fetch through (issue 26): each connection's address is checked
// against the source's reach before it is made, on the resolved address, so a DNS answer or a
// redirect cannot lead a pull into a network its source was not allowed to reach.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { ThreatgateError } from '../errors.js';
import { isIP, type Socket } from 'node:net';
import type { Agent, buildConnector as BuildConnector } from 'undici';
import { refusal, type NetworkReach } from './network-policy.js';

/** Resolves a host name to its addresses (every family); tests pass their own to control DNS. */
export type ResolveHost = (hostname: string) => Promise<LookupAddress[]>;

/** A connection the reach does not allow; carried as the `cause` of fetch's error. */
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
 * A connection pool whose every connection respects `reach`: an IP literal is checked before
 * connecting, a name is resolved through the guarded lookup, and the connected socket's remote
 * address is checked once more (whatever path led there) before a byte is sent.
 */
export async function createGuardedAgent(reach: NetworkReach, resolveHost: ResolveHost = systemResolve): Promise<Agent> {
  // undici is loaded by the first pull over HTTP: the commands that pull nothing start without it.
  const { Agent, buildConnector } = await import('undici');
  const connector = buildConnector({ lookup: guardedLookup(reach, resolveHost) } as BuildConnector.BuildOptions);
  return new Agent({
    connect(options, callback) {
      const host = options.hostname.startsWith('[') ? options.hostname.slice(1, -1) : options.hostname;
      const literal = isIP(host) === 0 ? undefined : refusal(host, reach);
      if (literal !== undefined) {
        callback(new ConnectionRefused(literal), null);
        return;
      }
      connector(options, (error, socket) => {
        if (error !== null) {
          callback(error, null);
          return;
        }
        const remote = (socket as Socket).remoteAddress;
        const refused = remote === undefined ? 'the connection has no remote address' : refusal(remote, reach);
        if (refused !== undefined) {
          socket.destroy();
          callback(new ConnectionRefused(refused), null);
          return;
        }
        callback(null, socket);
      });
    },
  });
}

/** Agents by reach (and resolver), kept for the life of the process so that pages of one walk share connections. */
const agents = new WeakMap<ResolveHost, Map<string, Promise<Agent>>>();

export function agentFor(reach: NetworkReach, resolveHost: ResolveHost = systemResolve): Promise<Agent> {
  const key = [...reach.inner].sort().join(',');
  let byReach = agents.get(resolveHost);
  if (byReach === undefined) agents.set(resolveHost, (byReach = new Map()));
  let agent = byReach.get(key);
  if (agent === undefined) byReach.set(key, (agent = createGuardedAgent(reach, resolveHost)));
  return agent;
}
