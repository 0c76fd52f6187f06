// wrk for the HTTP benchmark: the Lua report hook, one pinned run, and its figures.
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pinned, track } from './processes.js';

const WRK_TIMEOUT = '30s';

/** wrk's done() hook prints the figures as one JSON line, in microseconds, so no unit parsing is needed. */
const WRK_REPORT = `done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('WRK_JSON {"requests":%d,"duration_us":%d,"bytes":%d,"p50_us":%d,"p99_us":%d,"max_us":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d}\\n',
    summary.requests, summary.duration, summary.bytes, latency:percentile(50), latency:percentile(99), latency.max,
    e.connect, e.read, e.write, e.status, e.timeout))
end
`;

export interface WrkRun {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  /** Socket errors, timeouts and non-2xx/3xx answers. */
  errors: number;
}

interface WrkJson {
  requests: number;
  duration_us: number;
  p50_us: number;
  p99_us: number;
  connect: number;
  read: number;
  write: number;
  status: number;
  timeout: number;
}

export interface LoadSettings {
  connections: number;
  cores: string | null;
  script: string;
}

/** Writes the report hook into `outDir`; returns its path, for LoadSettings.script. */
export async function writeWrkScript(outDir: string): Promise<string> {
  const script = join(outDir, 'wrk-report.lua');
  await writeFile(script, WRK_REPORT);
  return script;
}

export async function runWrk(port: number, path: string, headers: Record<string, string>, seconds: number, load: LoadSettings): Promise<WrkRun> {
  const headerArgs = Object.entries(headers).flatMap(([name, value]) => ['-H', `${name}: ${value}`]);
  const wrkArgs = ['-t1', `-c${load.connections}`, `-d${seconds}s`, `--timeout`, WRK_TIMEOUT, '--latency', '-s', load.script, ...headerArgs, `http://127.0.0.1:${port}${path}`];
  const [command, args] = pinned(load.cores, 'wrk', wrkArgs);
  const output = await new Promise<string>((done, fail) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    track(child);
    let text = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (text += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (text += d));
    child.on('error', fail);
    child.on('close', (code) => {
      if (code === 0) done(text);
      else fail(new Error(`wrk exited with ${code}: ${text.trim()}`));
    });
  });
  const line = output.split('\n').find((l) => l.startsWith('WRK_JSON '));
  if (!line) throw new Error(`no figures from wrk:\n${output}`);
  const w = JSON.parse(line.slice('WRK_JSON '.length)) as WrkJson;
  return {
    rps: w.requests / (w.duration_us / 1e6),
    p50Ms: w.p50_us / 1000,
    p99Ms: w.p99_us / 1000,
    requests: w.requests,
    errors: w.connect + w.read + w.write + w.status + w.timeout,
  };
}
