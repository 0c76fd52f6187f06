// The per-request metrics, counted in plain numbers: a request costs a map lookup and a few
// additions, not prom-client's label hashing and validation on every request (bench/README.md, metrics). The
// prom-client metrics are filled from these counts when they are read, at scrape time.
import type { Counter, Histogram, MetricValueWithName } from 'prom-client';

const METHOD_NAMES = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'other'] as const;
const METHOD_INDEX = new Map<string, number>(METHOD_NAMES.map((name, i) => [name, i]));
const OTHER_METHOD = METHOD_NAMES.length - 1;

/** Which way a request was answered: the `path` label (the fast path, or Express's stack). */
export type AnsweredPath = 'fast' | 'express';
const PATH_NAMES = ['express', 'fast'] as const;

interface RouteTally {
  /** Requests by path, method and status: the key is path index × 100,000 + method index × 1000 + status. */
  answers: Map<number, number>;
  /** Per bucket of `bounds`, the requests that took at most that long and more than the previous bound. */
  buckets: number[];
  sum: number;
  count: number;
}

/** Requests by route template, method and status, with a duration histogram per route. */
export class RequestTally {
  private readonly routes = new Map<string, RouteTally>();

  constructor(readonly bounds: readonly number[]) {}

  add(route: string, method: string, status: number, seconds: number, path: AnsweredPath = 'express'): void {
    let tally = this.routes.get(route);
    if (tally === undefined) {
      tally = { answers: new Map(), buckets: this.bounds.map(() => 0), sum: 0, count: 0 };
      this.routes.set(route, tally);
    }
    const key = (path === 'fast' ? 100_000 : 0) + (METHOD_INDEX.get(method) ?? OTHER_METHOD) * 1000 + status;
    tally.answers.set(key, (tally.answers.get(key) ?? 0) + 1);
    const { bounds } = this;
    let i = 0;
    while (i < bounds.length && seconds > bounds[i]!) i++;
    if (i < bounds.length) tally.buckets[i]!++;
    tally.sum += seconds;
    tally.count++;
  }

  /** Sets `counter` (labels route, method, status, path) to the counts. */
  fill(counter: Counter<'route' | 'method' | 'status' | 'path'>): void {
    counter.reset();
    for (const [route, tally] of this.routes) {
      for (const [key, n] of tally.answers) {
        counter.inc({ route, method: METHOD_NAMES[Math.floor(key / 1000) % 100]!, status: String(key % 1000), path: PATH_NAMES[Math.floor(key / 100_000)]! }, n);
      }
    }
  }

  /**
   * The duration histogram as prom-client's histograms give themselves (Histogram.get()): cumulative
   * `_bucket` samples with `le`, `+Inf` last, then `_sum` and `_count`, per route. Registries print it
   * and the cluster sum adds it up as any other histogram.
   */
  histogram(name: string, help: string): Histogram<'route'> {
    const values = (): MetricValueWithName<string>[] => {
      const out: MetricValueWithName<string>[] = [];
      for (const [route, tally] of this.routes) {
        let cumulative = 0;
        this.bounds.forEach((le, i) => {
          cumulative += tally.buckets[i]!;
          out.push({ labels: { route, le }, value: cumulative, metricName: `${name}_bucket` });
        });
        out.push({ labels: { route, le: '+Inf' }, value: tally.count, metricName: `${name}_bucket` });
        out.push({ labels: { route }, value: tally.sum, metricName: `${name}_sum` });
        out.push({ labels: { route }, value: tally.count, metricName: `${name}_count` });
      }
      return out;
    };
    const metric = {
      name,
      help,
      type: 'histogram',
      aggregator: 'sum',
      get: async () => ({ name, help, type: 'histogram', aggregator: 'sum', values: values() }),
      reset: () => this.routes.clear(),
    };
    // A metric to a Registry is what it reads: name, type and get() (prom-client's Registry and AggregatorRegistry).
    return metric as unknown as Histogram<'route'>;
  }
}
