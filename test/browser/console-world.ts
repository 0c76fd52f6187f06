// What the console's browser tests share: a real threatgate server (the command line from the sources) over a
// SQLite store filled by pulls of the local fixture server, one feed failing; an admin key and a plan key;
// Debian's chromium driven by playwright-core; the errors a page logs; an axe-core scan.
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startFeedServer, type FeedServer } from '../helpers/feed-server.js';
import { runCli, SOURCE_MAIN, type CliRun } from '../helpers/pull-harness.js';

/** Debian's chromium (`apt-get install -y chromium`); playwright-core downloads no browser of its own. */
export const CHROMIUM = '/usr/bin/chromium';

const REPOSITORY = fileURLToPath(new URL('../../', import.meta.url));

/** axe-core's browser bundle, evaluated in the page: a page's CSP refuses an added script tag, not an evaluation. */
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface WorldFeed {
  fid: number;
  name: string;
}

export interface ConsoleWorld {
  /** `http://127.0.0.1:PORT`, the server under test. */
  base: string;
  adminKey: string;
  /** A Pro plan key: it opens the lookup API, TAXII and the exports, never the console. */
  planKey: string;
  feedServer: FeedServer;
  /** blocklist-de.txt and drop.txt pulled good; broken.txt answers 500. */
  feeds: { blocklist: WorldFeed; drop: WorldFeed; broken: WorldFeed };
  /** The error the failing feed's pulls record. */
  brokenError: string;
  browser: Browser;
  /** `threatgate ARGS` on the world's store and config, as a child process. */
  cli(args: string[]): Promise<CliRun>;
  /** The lines of GET /export/indicators.txt read with the plan key: the active indicators. */
  exportLines(): Promise<string[]>;
  /** A page in a context of its own (no cookies shared with another test), its console errors collected. */
  newPage(): Promise<WatchedPage>;
  close(): Promise<void>;
}

export interface WatchedPage {
  page: Page;
  context: BrowserContext;
  /** Every `console.error` the pages logged (a CSP refusal, an asset that failed to load) and every uncaught exception. */
  errors: string[];
}

interface ServerProcess {
  base: string;
  child: ChildProcessWithoutNullStreams;
}

/**
 * `serve` from the sources (as runCli runs the other commands: no build needed, none stale) on a port
 * the system picks; resolves once it prints its `listening on` line. Nothing in its environment may
 * point it at another store, config or Redis.
 */
function startServer(db: string, config: string): Promise<ServerProcess> {
  const { DATABASE_URL: _db, THREATGATE_CONFIG: _config, REDIS_URL: _redis, PORT: _port, HOST: _host, ...env } = process.env;
  // It pulls (its puller takes "Pull now"); the world's feeds were pulled before it started, so none is due then.
  const args = ['--import', 'tsx', SOURCE_MAIN, '--db', db, '--config', config, 'serve', '--port', '0', '--workers', '1'];
  const child = spawn(process.execPath, args, { cwd: REPOSITORY, env: { ...env, LOG_LEVEL: 'warn' } });
  let out = '';
  let err = '';
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /^listening on (http:\/\/\S+)$/m.exec(out);
      if (match) resolve({ base: match[1]!, child });
    });
    child.once('exit', (code) => reject(new Error(`threatgate serve exited (${code}) before it was ready:\n${err}`)));
  });
}

/** Ends the server and waits for it to exit. */
async function stopServer(server: ServerProcess): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return;
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGTERM');
  await exited;
}

export async function openConsoleWorld(): Promise<ConsoleWorld> {
  const dir = mkdtempSync(join(tmpdir(), 'threatgate-console-'));
  // What has been started, ended last first by close() or when the world fails to open: a browser or a
  // server left running would keep the test process alive after its tests.
  const started: Array<() => Promise<void>> = [async () => rmSync(dir, { recursive: true, force: true })];
  const closeAll = async () => {
    for (const close of started.splice(0).reverse()) await close().catch(() => undefined);
  };
  try {
    const db = join(dir, 'store.sqlite');
    const config = join(dir, 'config.json');
    // The fixture server listens on 127.0.0.1, which pulls refuse unless the config allows private networks.
    // An hourly check: between "Pull now" wakes the puller leaves the world's feeds as the tests pulled them.
    writeFileSync(config, JSON.stringify({ sources: { allowPrivateNetworks: true }, pull: { checkSeconds: 3600 } }));
    const cli = (args: string[]) => runCli(['--db', db, '--config', config, ...args]);
    const ok = async (args: string[]) => {
      const run = await cli(args);
      assert.equal(run.status, 0, `threatgate ${args.join(' ')}:\n${run.stderr}`);
      return run.stdout.trim();
    };

    const feedServer = await startFeedServer();
    started.push(() => feedServer.close());
    feedServer.publishFixture('blocklist-de.txt');
    feedServer.publishFixture('drop.txt');
    feedServer.publish('/broken.txt', '203.0.113.60\n');
    feedServer.fail('/broken.txt', { kind: 'status', status: 500 });
    const add = async (name: string, path: string, risk: string): Promise<WorldFeed> => {
      const source = JSON.stringify({ url: `${feedServer.base}${path}`, format: 'text', risk, schedule: 'daily' });
      return { fid: Number(await ok(['feeds', 'add', '--feed', name, '--organization', 'Console Tests', '--source', source])), name };
    };
    // One after the other, so that the fids are 1, 2 and 3 in the order of the Feeds page; the first creates the store.
    const feeds = { blocklist: await add('Blocklist', '/blocklist-de.txt', 'high'), drop: await add('Example DROP', '/drop.txt', 'high'), broken: await add('Broken list', '/broken.txt', 'medium') };
    // The store waits for its lock (busy_timeout), so the keys are written while the pull runs and the server starts.
    const [pulled, adminKey, planKey, serverStart, browserLaunch] = await Promise.allSettled([
      cli(['feeds', 'pull', '--all']),
      ok(['keys', 'create', '--admin', '--label', 'browser tests']),
      ok(['keys', 'create', '--plan', 'pro', '--label', 'a plan key']),
      startServer(db, config),
      chromium.launch({ executablePath: CHROMIUM, headless: true }),
    ]);
    if (serverStart.status === 'fulfilled') started.push(() => stopServer(serverStart.value));
    if (browserLaunch.status === 'fulfilled') started.push(() => browserLaunch.value.close());
    for (const result of [pulled, adminKey, planKey, serverStart, browserLaunch]) if (result.status === 'rejected') throw result.reason;
    const value = <T>(result: PromiseSettledResult<T>) => (result as PromiseFulfilledResult<T>).value;
    const server = value(serverStart);
    const browser = value(browserLaunch);
    // One feed fails, so the command exits 1; the two others must have been pulled.
    assert.equal(value(pulled).status, 1, value(pulled).stderr);
    assert.equal(feedServer.requestsFor('/blocklist-de.txt').length, 1);
    assert.equal(feedServer.requestsFor('/drop.txt').length, 1);
    return {
      base: server.base,
      adminKey: value(adminKey),
      planKey: value(planKey),
      feedServer,
      feeds,
      brokenError: `${feedServer.base}/broken.txt: HTTP status 500`,
      browser,
      cli,
      async exportLines() {
        const res = await fetch(`${server.base}/export/indicators.txt`, { headers: { authorization: `Basic ${Buffer.from(`taxii2:${value(planKey)}`).toString('base64')}` } });
        assert.equal(res.status, 200, await res.clone().text());
        return (await res.text()).split('\n').filter((line) => line !== '');
      },
      async newPage() {
        const context = await browser.newContext({ baseURL: server.base });
        // Everything is local: what has not happened by then will not (Playwright's default is 30 s a step).
        context.setDefaultTimeout(15_000);
        const page = await context.newPage();
        const errors: string[] = [];
        page.on('console', (message) => {
          if (message.type() === 'error') errors.push(`${page.url()}: ${message.text()}`);
        });
        page.on('pageerror', (error) => errors.push(`${page.url()}: uncaught ${error.message}`));
        return { page, context, errors };
      },
      close: closeAll,
    };
  } catch (error) {
    await closeAll();
    throw error;
  }
}

export interface AxeFinding {
  id: string;
  impact: string;
  help: string;
  targets: string[];
}

/** axe-core's findings on the page as it stands, serious and critical ones only: the console must have none. */
export async function seriousAxeFindings(page: Page): Promise<AxeFinding[]> {
  await page.evaluate(`if (typeof window.axe === 'undefined') { ${AXE_SOURCE}\n }`);
  const violations = (await page.evaluate('window.axe.run(document).then((r) => r.violations)')) as {
    id: string;
    impact: string | null;
    help: string;
    nodes: { target: unknown[] }[];
  }[];
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact!, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) }));
}
