// Liveness and readiness probes: no auth, no rate limits, nothing cached.
import { Router } from 'express';
import type { Store } from '../store/store.js';

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
  /** The process is up and serving. */
  router.get('/healthz', (_req, res) => {
    res.set('Cache-Control', 'no-store').json({ status: 'ok' });
  });
  /** The store answers (in time) and its migrations are current; otherwise 503. */
  router.get('/readyz', async (_req, res) => {
    res.set('Cache-Control', 'no-store');
    try {
      await withinTimeout(store.checkReady(), READY_TIMEOUT_MS);
      res.json({ status: 'ready' });
    } catch {
      res.status(503).json({ status: 'unavailable', error: 'The database is not reachable or not migrated.' });
    }
  });
  return router;
}
