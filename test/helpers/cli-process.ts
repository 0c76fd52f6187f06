// Runs the built CLI as a child process and follows its output: the ready line, JSON log lines, the exit.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { fileURLToPath } from 'node:url';

export const CLI = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

export interface LogEntry {
  level: string;
  pid: number;
  msg: string;
  [field: string]: unknown;
}

export interface CliProcess {
  child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  /** The JSON log lines written so far (other stderr lines are skipped). */
  logs(): LogEntry[];
  /** The base URL from the `listening on` line; rejects if the process exits first. */
  ready: Promise<string>;
  exited: Promise<number | null>;
  /** Resolves once a log line satisfies `match` (rejects after `timeoutMs`). */
  waitForLog(match: (entry: LogEntry) => boolean, timeoutMs?: number): Promise<LogEntry>;
}

export function startCli(args: string[], env: Record<string, string> = {}): CliProcess {
  const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, LOG_LEVEL: 'info', ...env } });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const ready = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', () => {
      const match = /^listening on (http:\/\/\S+)$/m.exec(out);
      if (match) resolve(match[1]!);
    });
    void exited.then((code) => reject(new Error(`the server exited (${code}) before it was ready:\n${err}`)));
  });
  ready.catch(() => undefined);
  const logs = () =>
    err
      .split('\n')
      .slice(0, -1) // the last piece may be a line still being written
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as LogEntry);
  const waitForLog = async (match: (entry: LogEntry) => boolean, timeoutMs = 15_000) => {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const found = logs().find(match);
      if (found) return found;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`no matching log line within ${timeoutMs} ms:\n${err}`);
  };
  return { child, stdout: () => out, stderr: () => err, logs, ready, exited, waitForLog };
}

/** A GET on a new connection each time, so a cluster primary hands each request to the next worker. */
export function getOnNewConnection(base: string, path: string): Promise<{ status: number; headers: IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(new URL(path, base), { agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}
