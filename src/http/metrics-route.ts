// GET /metrics: the Prometheus text format, with no key and outside the rate limits (docs/deployment.md, "Metrics").
import type { Express } from 'express';
import { ServiceUnavailableError } from '../errors.js';
import type { Metrics } from '../metrics/metrics.js';
import type { Logger } from '../logger.js';
import { methodNotAllowed } from './method-guard.js';

/** A warning per failing stretch is enough; Prometheus scrapes every few seconds. */
const WARN_EVERY_MS = 60_000;

/**
 * Adds GET /metrics to `app`, answered with what `metrics.scrape()` gives: this process's registry,
 * or, in a cluster worker, the sum of every worker and the primary. A scrape that cannot be gathered
 * (a worker that does not answer) is a 503, so that Prometheus records a failed scrape rather than a
 * partial sum, which its rate() would read as counters going back.
 *
 * A route of the app itself, not a Router: every other request passes it with one path test. A
 * Router mounted at the root is entered by every request, and one that answers none of them hands
 * each on in a later turn of the event loop (the router package's setImmediate): work on every
 * request for a path that only Prometheus asks for.
 */
export function addMetricsRoute(app: Express, metrics: Metrics, logger: Logger): void {
  let warnedAt = -Infinity;
  app
    .route('/metrics')
    .get(async (_req, res) => {
      res.set('Cache-Control', 'no-store');
      let text: string;
      try {
        text = await metrics.scrape();
      } catch (error) {
        const now = Date.now();
        if (now - warnedAt >= WARN_EVERY_MS) {
          warnedAt = now;
          logger.warn('metrics could not be gathered', { error: error instanceof Error ? error.message : String(error) });
        }
        // Rendered by the app's error renderer, as every other error: {"error": "..."}.
        throw new ServiceUnavailableError('The metrics could not be gathered; try again.', { cause: error });
      }
      res.set('Content-Type', metrics.contentType).send(text);
    })
    .all(methodNotAllowed(['GET', 'HEAD']));
}
