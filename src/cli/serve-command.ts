// `threatgate serve`: listens, prints the ready line, and shuts down cleanly on SIGTERM/SIGINT.
import { createServer, type Server } from 'node:http';
import { createApp } from '../app.js';
import { systemClock } from '../clock.js';
import type { Config, RuntimeSettings } from '../config.js';
import { ConfigError } from '../errors.js';
import type { Logger } from '../http/logger.js';
import type { Store } from '../store/store.js';
import { taxiiRouters } from '../taxii-wiring.js';
import { loadDemo, printDemoKeys } from './demo-command.js';

/** In-flight requests get this long to finish after SIGTERM before the process exits anyway. */
const SHUTDOWN_GRACE_MS = 10_000;

export interface ServeOptions {
  store: Store;
  config: Config;
  settings: RuntimeSettings;
  logger: Logger;
  demoIfEmpty: boolean;
  out: (line: string) => void;
  err: (line: string) => void;
}

function listen(server: Server, port: number, host: string, setting: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(new ConfigError(`${setting}: cannot listen on ${host}:${port} (${error.code ?? error.message})`)),
    );
    server.listen(port, host, () => resolve());
  });
}

export async function serve(options: ServeOptions): Promise<void> {
  const { store, config, settings, logger } = options;
  if (options.demoIfEmpty && (await store.isEmpty())) {
    options.err('the store is empty: loading the demo data set (one moment)...');
    const result = await loadDemo(store, config, systemClock);
    options.err(`demo: loaded ${result.counts.indicators} indicators; one API key per plan:`);
    printDemoKeys(result, options.out);
  }
  // Saved views added to or changed in the config get their members before the first request.
  if (await store.syncCollections(config.collections, systemClock)) logger.info('collections rebuilt for the configured views');
  const app = createApp({ config, store, logger, extraRouters: taxiiRouters() });
  const real: Server = createServer(app);
  real.keepAliveTimeout = 65_000;
  await listen(real, settings.port, settings.host, '--port');
  const address = real.address();
  const port = typeof address === 'object' && address ? address.port : settings.port;
  const shownHost = settings.host.includes(':') ? `[${settings.host}]` : settings.host;
  options.out(`listening on http://${shownHost}:${port}`);

  const shutdown = (signal: string) => {
    logger.info('shutting down', { signal });
    const timer = setTimeout(() => process.exit(0), SHUTDOWN_GRACE_MS);
    timer.unref();
    real.close(() => {
      void store.close().finally(() => process.exit(0));
    });
    real.closeIdleConnections();
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}
