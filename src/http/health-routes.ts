// Liveness and readiness probes: no auth, no rate limits, nothing cached.
import { Router } from 'express';
import type { Store } from '../store/store.js';

export function createHealthRoutes(store: Store): Router {
  const router = Router();
  /** The process is up and serving. */
  router.get('/healthz', (_req, res) => {
    res.set('Cache-Control', 'no-store').json({ status: 'ok' });
  });
  /** The store answers and its migrations are current; otherwise 503. */
  router.get('/readyz', async (_req, res) => {
    res.set('Cache-Control', 'no-store');
    try {
      await store.checkReady();
      res.json({ status: 'ready' });
    } catch {
      res.status(503).json({ status: 'unavailable', error: 'The database is not reachable or not migrated.' });
    }
  });
  return router;
}
