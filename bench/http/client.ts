// The HTTP benchmark's client: raw status, headers and body, as the replay servers must give them back.
import { request as httpRequest } from 'node:http';
import { PER_CONNECTION_HEADERS } from '../bare-server.js';

export interface RawResponse {
  status: number;
  rawHeaders: string[];
  body: Buffer;
}

export function get(port: number, path: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  return new Promise((done, fail) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => done({ status: res.statusCode ?? 0, rawHeaders: res.rawHeaders, body: Buffer.concat(chunks) }));
      res.on('error', fail);
    });
    req.setTimeout(120_000, () => req.destroy(new Error(`GET ${path}: timed out`)));
    req.on('error', fail);
    req.end();
  });
}

export async function getJson<T>(port: number, path: string, headers: Record<string, string> = {}): Promise<{ status: number; json: T; header: (name: string) => string | undefined }> {
  const res = await get(port, path, headers);
  const header = (name: string) => {
    for (let i = 0; i < res.rawHeaders.length; i += 2) if (res.rawHeaders[i]!.toLowerCase() === name.toLowerCase()) return res.rawHeaders[i + 1];
    return undefined;
  };
  return { status: res.status, json: JSON.parse(res.body.toString('utf8')) as T, header };
}

export async function getOk<T>(port: number, path: string, headers: Record<string, string> = {}): Promise<T> {
  const res = await getJson<T>(port, path, headers);
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${JSON.stringify(res.json).slice(0, 300)}`);
  return res.json;
}

/** Recorded header lines without the ones node:http adds per response. */
export function replayableHeaders(rawHeaders: readonly string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < rawHeaders.length; i += 2) if (!PER_CONNECTION_HEADERS.has(rawHeaders[i]!.toLowerCase())) kept.push(rawHeaders[i]!, rawHeaders[i + 1]!);
  return kept;
}
