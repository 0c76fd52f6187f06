#!/usr/bin/env node
// `npm run test:interop`: builds, loads the demo into a fresh store, serves the gateway on a spare
// loopback port (and once more with the default plans, for the README's example) and runs the
// Python interop suite (interop/suite) against it. Before it serves, a few sightings are recorded
// with `threatgate seen` (record-sightings.mjs), so that the collections hold STIX sightings. The
// suite runs the change import itself, while the server keeps serving. The last line is `N passed, N failed`.
//
// Options: --no-build (dist/ is already current), --keep (keep the temporary folder: store, logs),
// --only NAME[,NAME] (only those phases of the suite that stand alone: accept_values,
// pulsedive_client, pulsedive_analyze; suite/run_suite.py), --venv-only (make the virtual
// environment and stop: CI makes it while other steps run).
// Environment: INTEROP_PYTHON (interpreter for the virtual environment, default python3),
// TG_WORKERS (validator processes, default: one per core).
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { makeChange } from './make-change.mjs';
import { recordSightings } from './record-sightings.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = dirname(HERE);
const VENV = join(HERE, '.venv');
const VENV_PYTHON = join(VENV, 'bin', 'python');
const REQUIREMENTS = join(HERE, 'requirements.txt');
const STAMP = join(VENV, '.requirements.sha256');
const CLI = join(ROOT, 'dist', 'main.js');
const SERVER_START_TIMEOUT_MS = 60_000;
const SERVER_STOP_TIMEOUT_MS = 15_000;

/** The suite makes tens of thousands of requests with these two plans: limits it never reaches. */
const UNLIMITED = { perSecond: 1_000_000, perDay: 1_000_000_000, perMonth: 1_000_000_000 };
const SUITE_CONFIG = { plans: { pro: UNLIMITED, free: UNLIMITED } };

/** Settings that would point the children at another store, port or config than the suite's own. */
const CHILD_ENV_DROPPED = ['DATABASE_URL', 'REDIS_URL', 'THREATGATE_CONFIG', 'PORT', 'HOST'];

const started = Date.now();
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
const step = (text) => process.stdout.write(`\n== ${text} (${elapsed()})\n`);

function childEnv(extra = {}) {
  const env = { ...process.env, LOG_LEVEL: 'warn', ...extra };
  for (const name of CHILD_ENV_DROPPED) delete env[name];
  return env;
}

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: 'inherit', cwd: ROOT, ...options });
  if (result.error) throw new Error(`${command} ${args.join(' ')}: ${result.error.message}`);
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited with ${result.status ?? result.signal}`);
  return result;
}

/** The virtual environment, reinstalled only when requirements.txt or the interpreter changed. */
function ensureVenv() {
  const basePython = process.env.INTEROP_PYTHON || 'python3';
  const version = spawnSync(basePython, ['--version'], { encoding: 'utf8' });
  if (version.status !== 0) throw new Error(`${basePython} not found: the interop suite needs Python 3.11+ (set INTEROP_PYTHON)`);
  const want = createHash('sha256').update(readFileSync(REQUIREMENTS)).update(version.stdout + version.stderr).digest('hex');
  const usable = existsSync(VENV_PYTHON) && spawnSync(VENV_PYTHON, ['-c', 'import sys'], { stdio: 'ignore' }).status === 0;
  if (usable && existsSync(STAMP) && readFileSync(STAMP, 'utf8').trim() === want) return 'up to date';
  if (!usable) {
    rmSync(VENV, { recursive: true, force: true });
    run(basePython, ['-m', 'venv', VENV]);
  }
  run(VENV_PYTHON, ['-m', 'pip', 'install', '--disable-pip-version-check', '--no-input', '--quiet', '-r', REQUIREMENTS]);
  writeFileSync(STAMP, `${want}\n`);
  return 'installed';
}

function loadDemo(db, config) {
  const result = spawnSync(process.execPath, [CLI, 'demo', '--db', db, '--config', config], { encoding: 'utf8', env: childEnv(), cwd: ROOT });
  if (result.status !== 0) throw new Error(`threatgate demo exited with ${result.status}: ${result.stderr.trim()}`);
  process.stdout.write(result.stderr);
  const keys = Object.fromEntries([...result.stdout.matchAll(/^(\w+)\s+(\S+)$/gm)].map((m) => [m[1], m[2]]));
  if (!keys.pro || !keys.free) throw new Error(`threatgate demo printed no pro/free keys: ${result.stdout}`);
  return keys;
}

/**
 * Starts `serve --port 0` and resolves with its URL once it prints the ready line; `args` adds to
 * the command line (`--config FILE`; none: the default config, as `npm start` runs).
 */
function startServer(db, args, logFile) {
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--host', '127.0.0.1', '--db', db, ...args], {
    env: childEnv(),
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log = createWriteStream(logFile);
  child.stderr.pipe(log);
  const url = new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`the server printed no "listening on" line in ${SERVER_START_TIMEOUT_MS / 1000} s`)), SERVER_START_TIMEOUT_MS);
    child.stdout.on('data', (chunk) => {
      log.write(chunk);
      text += chunk.toString();
      const match = /^listening on (http:\/\/\S+)$/m.exec(text);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the server exited before it was ready (${code ?? signal}); see ${logFile}`));
    });
  });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return { child, url, exited, log };
}

async function stopServer(server) {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return server.exited;
  server.child.kill('SIGTERM');
  const timer = setTimeout(() => server.child.kill('SIGKILL'), SERVER_STOP_TIMEOUT_MS);
  const result = await server.exited;
  clearTimeout(timer);
  return result;
}

/** Runs the Python suite with output streamed through; resolves with its exit code and last line. */
function runSuite(env) {
  return new Promise((resolve, reject) => {
    const child = spawn(VENV_PYTHON, ['-u', join(HERE, 'suite', 'run_suite.py')], { env, cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let tail = '';
    child.stdout.on('data', (chunk) => {
      process.stdout.write(chunk);
      tail = (tail + chunk.toString()).slice(-4096);
    });
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, lastLine: tail.trim().split('\n').at(-1) ?? '' }));
  });
}

function printLogTail(logFile, lines = 30) {
  if (!existsSync(logFile)) return;
  const text = readFileSync(logFile, 'utf8').trim();
  if (text === '') return;
  process.stdout.write(`\n== last lines of the server log (${logFile})\n${text.split('\n').slice(-lines).join('\n')}\n`);
}

async function main() {
  const { values } = parseArgs({ options: { 'no-build': { type: 'boolean' }, keep: { type: 'boolean' }, only: { type: 'string' }, 'venv-only': { type: 'boolean' } } });
  if (values['venv-only']) {
    process.stdout.write(`interop/.venv: requirements ${ensureVenv()}\n`);
    return;
  }
  const work = mkdtempSync(join(tmpdir(), 'threatgate-interop-'));
  const db = join(work, 'interop.sqlite');
  const config = join(work, 'config.json');
  const logFile = join(work, 'server.log');
  const demoLogFile = join(work, 'demo-server.log');
  let passed = 0;
  let failed = 0;
  /** The suite's gateway (plans lifted), then the one with the default plans that the README example runs against. */
  const servers = [];
  try {
    step('Python virtual environment (interop/.venv)');
    process.stdout.write(`requirements ${ensureVenv()}\n`);
    if (!values['no-build']) {
      step('npm run build');
      run('npm', ['run', 'build', '--silent']);
    }
    step('demo data set');
    writeFileSync(config, JSON.stringify(SUITE_CONFIG, null, 2));
    const keys = loadDemo(db, config);
    const changeFile = join(work, 'change.json');
    const expectedFile = join(work, 'change-expected.json');
    const changes = await makeChange(changeFile, expectedFile, db);
    process.stdout.write(`change import prepared: ${changes.length} indicators (${changeFile})\n`);
    const sightingsFile = join(work, 'sightings-expected.json');
    const sighted = await recordSightings({ cli: CLI, db, config, env: childEnv(), expectedFile: sightingsFile, exclude: new Set(changes.map((c) => c.iid)) });
    const described = sighted.indicators.map((i) => `${i.type} ${i.value} (${i.sightings.length})`).join(', ');
    process.stdout.write(`sightings recorded with threatgate seen: ${described}; threat ${sighted.threats.map((t) => t.tid).join(', ')}\n`);

    step('gateway');
    const server = startServer(db, ['--config', config], logFile);
    servers.push({ name: 'the gateway', server, logFile });
    const baseUrl = await server.url;
    process.stdout.write(`listening on ${baseUrl}\n`);
    // The README's examples run against `npm start`'s demo: the same store with the default plans
    // (Pro: 10 requests a second). --no-pull: no lifecycle run to change the data under the suite.
    const demoServer = startServer(db, ['--no-pull'], demoLogFile);
    servers.push({ name: 'the default-plans gateway', server: demoServer, logFile: demoLogFile });
    const demoBaseUrl = await demoServer.url;
    process.stdout.write(`default plans: listening on ${demoBaseUrl}\n`);

    step('interop suite');
    const suite = await runSuite(
      childEnv({
        TG_BASE_URL: baseUrl,
        TG_DEMO_BASE_URL: demoBaseUrl,
        TG_PRO_KEY: keys.pro,
        TG_FREE_KEY: keys.free,
        TG_CHANGE_COMMAND: JSON.stringify([process.execPath, CLI, 'import', changeFile, '--db', db, '--config', config]),
        TG_CHANGE_EXPECTED: expectedFile,
        TG_SIGHTINGS_EXPECTED: sightingsFile,
        TG_ONLY: values.only ?? '',
        PYTHONDONTWRITEBYTECODE: '1',
      }),
    );
    const summary = /^(\d+) passed, (\d+) failed$/.exec(suite.lastLine);
    if (summary) {
      passed = Number(summary[1]);
      failed = Number(summary[2]);
    } else {
      process.stdout.write(`FAIL the Python suite ended without a summary line (exit ${suite.code})\n`);
      failed += 1;
    }
    if (summary && suite.code !== (failed > 0 ? 1 : 0)) {
      process.stdout.write(`FAIL the Python suite exited with ${suite.code}\n`);
      failed += 1;
    }
  } catch (error) {
    process.stdout.write(`FAIL interop setup: ${error instanceof Error ? error.message : String(error)}\n`);
    failed += 1;
  }

  for (const { name, server, logFile: serverLog } of servers) {
    const { code, signal } = await stopServer(server);
    server.log.end();
    const clean = code === 0;
    process.stdout.write(`${clean ? 'PASS' : 'FAIL'} ${name} exits 0 on SIGTERM - ${code ?? signal}\n`);
    if (clean) passed += 1;
    else failed += 1;
    const errors = existsSync(serverLog) ? readFileSync(serverLog, 'utf8').split('\n').filter((line) => line.includes('"level":"error"')) : [];
    process.stdout.write(`${errors.length === 0 ? 'PASS' : 'FAIL'} ${name} logged no errors during the suite - ${errors.length} error lines\n`);
    if (errors.length === 0) passed += 1;
    else failed += 1;
  }
  if (failed > 0) for (const { logFile: serverLog } of servers) printLogTail(serverLog);
  if (values.keep) process.stdout.write(`kept ${work}\n`);
  else rmSync(work, { recursive: true, force: true });
  process.stdout.write(`\ninterop suite took ${elapsed()}\n${passed} passed, ${failed} failed\n`);
  return failed > 0 ? 1 : 0;
}

process.exitCode = await main();
