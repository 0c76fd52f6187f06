// A TCP proxy a test can cut (refuse and drop connections), restore, or pause, to play a database or Redis outage.
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  readonly port: number;
  /** Drops every connection and refuses new ones, as a server that went away. */
  cut(): Promise<void>;
  /** Listens again on the same port. */
  restore(): Promise<void>;
  /** Holds bytes in both directions (connections stay up) until resume(). */
  pause(): void;
  resume(): void;
  /** Resolves once the paused proxy holds bytes: a request has reached it and waits there. */
  holding(): Promise<void>;
  close(): Promise<void>;
}

function listenOn(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let paused = false;
  const held: (() => void)[] = [];
  const waiters: (() => void)[] = [];
  const server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    const forward = (from: Socket, to: Socket) =>
      from.on('data', (chunk: Buffer) => {
        if (paused) {
          held.push(() => to.write(chunk));
          for (const wake of waiters.splice(0)) wake();
        } else to.write(chunk);
      });
    forward(client, upstream);
    forward(upstream, client);
  });
  const port = await listenOn(server, 0);
  const cutAll = () => {
    for (const socket of sockets) socket.destroy();
    sockets.clear();
  };
  return {
    port,
    cut: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        cutAll();
      }),
    restore: async () => {
      await listenOn(server, port);
    },
    pause() {
      paused = true;
    },
    holding: () => (held.length > 0 ? Promise.resolve() : new Promise<void>((resolve) => waiters.push(resolve))),
    resume() {
      paused = false;
      for (const send of held.splice(0)) send();
    },
    close: () =>
      new Promise<void>((resolve) => {
        held.length = 0;
        cutAll();
        if (server.listening) server.close(() => resolve());
        else resolve();
      }),
  };
}

/** The URL with its host and port replaced by the proxy's. */
export function throughProxy(url: string, proxy: TcpProxy): string {
  const parsed = new URL(url);
  parsed.hostname = '127.0.0.1';
  parsed.port = String(proxy.port);
  return parsed.toString();
}
