// Liveness and readiness probes: no auth, no rate limits, nothing cached.
import { Router } from 'express';
import type { Store } from '../store/store.js';
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

export function createHealthRoutes(store: Store): Router {
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
        res.json({ status: 'ready' });
      } catch {
        res.status(503).json({ status: 'unavailable', error: 'The database is not reachable or not migrated.' });
      }
    })
    .all(onlyGet);
  return router;
}
