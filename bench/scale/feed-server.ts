// The scale bench's feed server: node:http on 127.0.0.1, each feed's file streamed at its path, which a phase may point at another file.
import { createReadStream, statSync } from 'node:fs';
import { createServer } from 'node:http';

export interface FeedServer {
  /** `http://127.0.0.1:PORT` */
  base: string;
  /** Serves this file at path from now on. */
  publish(path: string, file: string): void;
  /** Requests answered per status since start. */
  statuses: Record<number, number>;
  close(): Promise<void>;
}

const contentType = (path: string) => (path.endsWith('.csv') ? 'text/csv; charset=utf-8' : path.endsWith('.json') ? 'application/json' : 'text/plain; charset=utf-8');

/**
 * No ETag or Last-Modified is sent, as many lists publish none: a re-pull then reads the whole body and finds it
 * unchanged by its hash (docs/interface.md section 10, "Pulls"), the costlier of the two unchanged cases.
 */
export async function startFeedServer(): Promise<FeedServer> {
  const files = new Map<string, string>();
  const statuses: Record<number, number> = {};
  const server = createServer((req, res) => {
    const file = files.get(req.url ?? '');
    const status = file === undefined ? 404 : 200;
    statuses[status] = (statuses[status] ?? 0) + 1;
    if (file === undefined) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': contentType(req.url!), 'content-length': statSync(file).size });
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    base: `http://127.0.0.1:${port}`,
    publish: (path, file) => void files.set(path, file),
    statuses,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
