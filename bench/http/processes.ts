// Child processes for the HTTP benchmark: started pinned, waited for, stopped with SIGTERM, never left behind; their RSS and CPU.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus } from 'node:os';
import { relative } from 'node:path';
import { log, ROOT } from './common.js';

export interface Server {
  name: string;
  port: number;
  child: ChildProcess;
  logFile: string;
}

const running = new Set<ChildProcess>();

export function killAll(): void {
  for (const child of running) child.kill('SIGKILL');
}

process.on('exit', killAll);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`${signal}: stopping the servers`);
    for (const child of running) child.kill('SIGTERM');
    setTimeout(() => process.exit(130), 3000).unref();
  });
}

/** Counts a child (wrk, a server) as running until it exits, so that an abort stops it. */
export function track(child: ChildProcess): void {
  running.add(child);
  child.once('exit', () => running.delete(child));
}

export function hasCommand(command: string, args: string[] = ['--version']): boolean {
  return !spawnSync(command, args, { stdio: 'ignore' }).error;
}

/** Which cores the servers and wrk get: wrk the last core, the servers the others when there are enough. */
export interface CoreLayout {
  server: string | null;
  load: string | null;
  note: string;
}

export function coreLayout(workers: number): CoreLayout {
  const cores = cpus().length;
  if (!hasCommand('taskset', ['-V']) || cores < 2) return { server: null, load: null, note: 'not pinned (taskset missing or one core)' };
  const load = String(cores - 1);
  if (workers < cores) {
    const server = workers === 1 ? '0' : `0-${workers - 1}`;
    return { server, load, note: `servers on core ${server}, wrk on core ${load}` };
  }
  const server = `0-${cores - 1}`;
  return { server, load, note: `servers on cores ${server}, wrk on core ${load}: wrk shares a core with a server worker` };
}

export function pinned(cores: string | null, command: string, args: string[]): [string, string[]] {
  return cores === null ? [command, args] : ['taskset', ['-c', cores, command, ...args]];
}

export async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const probe = createServer();
    probe.once('error', fail);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => done(port));
    });
  });
}

async function waitFor(what: string, timeoutMs: number, check: () => Promise<boolean>, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${what} exited before it was ready`);
    if (await check().catch(() => false)) return;
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error(`${what} was not ready after ${timeoutMs / 1000} s`);
}

export interface StartSpec {
  name: string;
  command: string;
  args: string[];
  cores: string | null;
  port: number;
  logFile: string;
  /** Where stdout goes: the log file, or /dev/null for threatgate's one JSON line per request. */
  stdoutToLog: boolean;
  ready: (port: number) => Promise<boolean>;
  env?: NodeJS.ProcessEnv;
}

export async function startServer(spec: StartSpec): Promise<Server> {
  const [command, args] = pinned(spec.cores, spec.command, spec.args);
  const logFd = openSync(spec.logFile, 'w');
  const outFd = spec.stdoutToLog ? logFd : openSync('/dev/null', 'w');
  const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, ...spec.env }, stdio: ['ignore', outFd, logFd] });
  closeSync(logFd);
  if (outFd !== logFd) closeSync(outFd);
  track(child);
  try {
    await waitFor(spec.name, 120_000, () => spec.ready(spec.port), child);
  } catch (error) {
    await stopServer({ name: spec.name, port: spec.port, child, logFile: spec.logFile });
    const tail = readFileSync(spec.logFile, 'utf8').trim().split('\n').slice(-15).join('\n');
    throw new Error(`${(error as Error).message}; log ${relative(ROOT, spec.logFile)}:\n${tail}`);
  }
  return { name: spec.name, port: spec.port, child, logFile: spec.logFile };
}

export async function stopServer(server: Server): Promise<void> {
  const { child } = server;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  await exited;
  clearTimeout(timer);
}

function readProc(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return ''; // the process has gone meanwhile
  }
}

/** A process and all its descendants (a cluster primary and its workers, gunicorn's arbiter and workers). */
function processTree(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readProc(`/proc/${name}/stat`);
    // Field 4, after the parenthesised command (which may hold spaces), is the parent pid.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (Number.isInteger(ppid)) children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
  }
  const tree: number[] = [];
  const visit = (at: number) => {
    tree.push(at);
    for (const child of children.get(at) ?? []) visit(child);
  };
  visit(pid);
  return tree;
}

/** VmRSS of each process of a process tree, in MiB, by pid. */
export function treeRssByPid(pid: number): Map<number, number> {
  const rss = new Map<number, number>();
  for (const at of processTree(pid)) {
    const match = /VmRSS:\s+(\d+) kB/.exec(readProc(`/proc/${at}/status`));
    if (match) rss.set(at, Number(match[1]) / 1024);
  }
  return rss;
}

/** Summed VmRSS of a process tree, in MiB, and how many processes it has. */
export function treeRssMB(pid: number): { mb: number; processes: number } {
  const rss = [...treeRssByPid(pid).values()];
  return { mb: rss.reduce((sum, mb) => sum + mb, 0), processes: rss.length };
}

/** User + system CPU of a process tree, in clock ticks (fields 14 and 15 of /proc/PID/stat). */
function treeCpuTicks(pid: number): number {
  let ticks = 0;
  for (const at of processTree(pid)) {
    const fields = readProc(`/proc/${at}/stat`).slice(readProc(`/proc/${at}/stat`).lastIndexOf(')') + 2).split(' ');
    ticks += Number(fields[11] ?? 0) + Number(fields[12] ?? 0);
  }
  return ticks;
}

/**
 * Waits until no server uses CPU: a server may still be working off requests that wrk sent
 * before it stopped (medallion takes half a second per objects page), and that work must not
 * land in the next server's measurement, on the same core.
 */
export async function quiesce(servers: readonly Server[]): Promise<void> {
  const total = () => servers.reduce((n, s) => n + (s.child.pid ? treeCpuTicks(s.child.pid) : 0), 0);
  const deadline = Date.now() + 120_000;
  let before = total();
  while (Date.now() < deadline) {
    await new Promise((done) => setTimeout(done, 250));
    const now = total();
    if (now - before <= 1) return;
    before = now;
  }
  log('  warning: a server was still busy after 120 s');
}
