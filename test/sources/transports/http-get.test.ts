// The pull's HTTP client over raw sockets: kept-alive connections shared and, when the server closed one as it was reused, the request made again; a malformed answer or a coding cut short fails the fetch by its code, never the process; HTTPS over the checked connection, with SNI.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { parseSource } from '../../../src/sources/source-definition.js';
import { fetchSource } from '../../../src/sources/transports/fetch-source.js';

const servers: Server[] = [];
const sockets = new Set<Socket>();
after(() => {
  for (const socket of sockets) socket.destroy();
  for (const server of servers) server.close();
});

/** A server that hands each connection's requests, one by one, to `answer` with their number on that connection (0, 1, ...). */
async function rawServer(answer: (socket: Socket, nth: number) => void): Promise<{ base: string; connections: () => number; server: Server }> {
  let connections = 0;
  const server = createServer((socket) => {
    connections++;
    sockets.add(socket);
    let nth = 0;
    let head = '';
    socket.on('error', () => undefined);
    socket.on('data', (chunk: Buffer) => {
      head += chunk.toString('latin1');
      while (head.includes('\r\n\r\n')) {
        head = head.slice(head.indexOf('\r\n\r\n') + 4);
        answer(socket, nth++);
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, connections: () => connections, server };
}

async function read(url: string): Promise<string> {
  const result = await fetchSource(parseSource({ url, format: 'text', timeoutSeconds: 5 }), {});
  assert.ok(result.kind === 'body');
  let all = '';
  for await (const chunk of result.body) all += Buffer.from(chunk as Uint8Array).toString('latin1');
  return all;
}

/** A self-signed certificate for localhost, made by openssl; undefined where there is none. */
function selfSigned(): { key: Buffer; cert: Buffer } | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'http-get-tls-'));
  try {
    const [key, cert] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=localhost'], { stdio: 'ignore' });
    return { key: readFileSync(key), cert: readFileSync(cert) };
  } catch {
    return undefined;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const ok = (body: string) => `HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\nKeep-Alive: timeout=30\r\n\r\n${body}`;

describe('the pull\'s HTTP client', () => {
  it('sends the requests of one origin over one kept-alive connection', async () => {
    const { base, connections, server } = await rawServer((socket, nth) => socket.write(ok(`page ${nth}\n`)));
    servers.push(server);
    assert.deepEqual([await read(`${base}/a`), await read(`${base}/b`), await read(`${base}/c`)], ['page 0\n', 'page 1\n', 'page 2\n']);
    assert.equal(connections(), 1);
  });

  it('asks again on a new connection when the server closed the kept-alive one as it was reused', async () => {
    // The second request on a connection is never answered: the server drops the connection, as one whose idle timeout ran out.
    const { base, connections, server } = await rawServer((socket, nth) => (nth === 0 ? socket.write(ok('first\n')) : socket.destroy()));
    servers.push(server);
    assert.equal(await read(`${base}/one`), 'first\n');
    assert.equal(await read(`${base}/two`), 'first\n');
    assert.equal(connections(), 2);
  });

  it('fails a malformed chunked body by its parse error, and a gzip body cut at the close by zlib\'s', async () => {
    const { base, server } = await rawServer((socket) => {
      socket.write('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\nZZ\r\n');
    });
    servers.push(server);
    await assert.rejects(read(`${base}/chunks`), { message: /: the response is not valid HTTP \(HPE_INVALID_CHUNK_SIZE\)$/ });
    const cut = await rawServer((socket) => {
      socket.write('HTTP/1.0 200 OK\r\nContent-Encoding: gzip\r\n\r\n');
      socket.end(gzipSync(randomBytes(10_000)).subarray(0, 5000));
    });
    servers.push(cut.server);
    await assert.rejects(read(`${cut.base}/cut.gz`), { message: /: the body's content coding cannot be undone \(Z_BUF_ERROR\)$/ });
  });

  const tls = selfSigned();
  it('speaks TLS over the checked connection, naming the host by SNI and checking its certificate', { skip: tls === undefined && 'no openssl to make a certificate' }, async () => {
    const names: string[] = [];
    const server = createHttpsServer({ ...tls!, SNICallback: (name, done) => {
      names.push(name);
      done(null, undefined);
    } }, (_req, res) => res.end('never\n'));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const port = (server.address() as AddressInfo).port;
      // The certificate is no CA's: the handshake happens, SNI and all, and the check refuses it.
      await assert.rejects(read(`https://localhost:${port}/list.txt`), { message: new RegExp(`^https://localhost:${port}/list\\.txt: connection failed \\(DEPTH_ZERO_SELF_SIGNED_CERT\\)$`) });
      assert.deepEqual(names, ['localhost']);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
