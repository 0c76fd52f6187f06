// Liveness and readiness probes: no auth, no rate limits, nothing cached.
import { Router } from 'express';
import type { Store } from '../store/contract/store.js';
import { methodNotAllowed } from './method-guard.js';

/** Probes usually give up after 1-5 s; a database that hangs must read as "not ready" before that. */
const READY_TIMEOUT_MS = 2000;

function withinTimeout(check: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`readiness check took longer than ${ms} ms`)), ms);
  });
  return Promise.race([check, timeout]).finally(() => clearTimeout(timer));
}

/** What /readyz says of the puller (the sources' PullerStatus has these fields). */
export interface PullerHealth {
  up: boolean;
  restarts: number;
}

/** `puller` in /readyz: `off` where this instance runs no puller (`--no-pull`, `pull.enabled` false, or not known to it). */
function pullerOf(status: PullerHealth | undefined) {
  if (status === undefined) return { puller: 'off' };
  return { puller: status.up ? 'up' : 'down', pullerRestarts: status.restarts };
}

/**
 * `pullerStatus` tells how this instance's puller is. A puller that is down is said, not a 503: the
 * store answers and lookups are served, so a load balancer must keep sending requests here; the
 * puller is restarted by itself, and `threatgate_puller_up` is what to alert on (docs/deployment.md).
 */
export function createHealthRoutes(store: Store, pullerStatus: () => PullerHealth | undefined = () => undefined): Router {
  const router = Router();
  // Other methods (OPTIONS included, which Express would answer itself with a text/plain 200) get
  // the lookup API's 405 with Allow, rendered by the app's JSON error renderer.
  const onlyGet = methodNotAllowed(['GET', 'HEAD']);
  /** The process is up and serving. */
  router
    .route('/healthz')
    .get((_req, res) => {
      res.set('Cache-Control', 'no-store').json({ status: 'ok' });
    })
    .all(onlyGet);
  /** The store answers (in time) and its migrations are current; otherwise 503. */
  router
    .route('/readyz')
    .get(async (_req, res) => {
      res.set('Cache-Control', 'no-store');
      try {
        await withinTimeout(store.checkReady(), READY_TIMEOUT_MS);
        res.json({ status: 'ready', ...pullerOf(pullerStatus()) });
      } catch {
        res.status(503).json({ status: 'unavailable', error: 'The database is not reachable or not migrated.' });
      }
    })
    .all(onlyGet);
  return router;
}
