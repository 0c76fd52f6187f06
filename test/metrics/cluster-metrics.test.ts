// The cluster side of /metrics (src/metrics/cluster-metrics.ts) over an in-memory stand-in for
// node:cluster's IPC: a worker's scrape is the sum of every worker and the primary; a worker that
// exits meanwhile is left out; one that stays silent fails the scrape; other messages pass by.
import assert from 'node:assert/strict';
import type { Worker } from 'node:cluster';
import { EventEmitter } from 'node:events';
import { describe, it } from 'node:test';
import { Counter, Registry } from 'prom-client';
import { joinClusterMetrics, servePrimaryMetrics } from '../../src/metrics/cluster-metrics.js';
import { createMetrics } from '../../src/metrics/metrics.js';
import { parsePrometheusText, sampleValue } from '../helpers/prometheus-text.js';

interface FakeWorker {
  worker: Worker;
  /** The worker process's side: what `process` is in a real worker. */
  channel: EventEmitter & { send(message: unknown): boolean };
  /** Stops answering: its messages to the primary are dropped. */
  mute(): void;
  exit(): void;
}

/** A primary (`cluster`) and workers whose messages cross asynchronously, as over IPC. */
function fakeCluster() {
  const cluster = Object.assign(new EventEmitter(), { workers: {} as NodeJS.Dict<Worker> });
  let nextId = 0;
  const spawn = (): FakeWorker => {
    const id = ++nextId;
    let connected = true;
    let muted = false;
    const channel = Object.assign(new EventEmitter(), {
      send(message: unknown) {
        if (!muted) setImmediate(() => cluster.emit('message', worker, JSON.parse(JSON.stringify(message))));
        return true;
      },
    });
    const worker = {
      id,
      isConnected: () => connected,
      send(message: unknown) {
        setImmediate(() => channel.emit('message', JSON.parse(JSON.stringify(message))));
        return true;
      },
    } as unknown as Worker;
    cluster.workers[id] = worker;
    return {
      worker,
      channel,
      mute: () => void (muted = true),
      exit() {
        connected = false;
        delete cluster.workers[id];
        cluster.emit('exit', worker, 0, null);
      },
    };
  };
  return { cluster, spawn };
}

describe('cluster metrics', () => {
  it('answers a worker\'s scrape with the sum of every worker\'s registry and the primary\'s', async () => {
    const { cluster, spawn } = fakeCluster();
    const primary = createMetrics({ defaultMetrics: false });
    servePrimaryMetrics(cluster, primary.registry);
    const workers = [spawn(), spawn()];
    const scrapes = workers.map((w) => {
      const metrics = createMetrics({ defaultMetrics: false, plans: ['free'] });
      return { metrics, scrape: joinClusterMetrics(w.channel, metrics.registry) };
    });
    scrapes[0]!.metrics.request('/api/threat.php', 'GET', 200, 0.002);
    scrapes[0]!.metrics.request('/api/threat.php', 'GET', 404, 0.001);
    scrapes[1]!.metrics.request('/api/threat.php', 'GET', 200, 0.003);
    scrapes[1]!.metrics.rateLimited('free', 'second');
    primary.background({ kind: 'pull', fid: 7, outcome: 'ok', seconds: 1.5, at: 1_700_000_000, rejected: { unparseable: 0, allowlisted: 0 } });

    for (const { scrape } of scrapes) {
      const text = parsePrometheusText(await scrape());
      assert.equal(sampleValue(text, 'threatgate_http_requests_total', { route: '/api/threat.php', status: '200' }), 2);
      assert.equal(sampleValue(text, 'threatgate_http_requests_total', { route: '/api/threat.php', status: '404' }), 1);
      assert.equal(sampleValue(text, 'threatgate_http_request_duration_seconds_count', { route: '/api/threat.php' }), 3);
      assert.equal(sampleValue(text, 'threatgate_http_request_duration_seconds_bucket', { route: '/api/threat.php', le: '0.0025' }), 2);
      assert.equal(sampleValue(text, 'threatgate_rate_limited_total', { plan: 'free', window: 'second' }), 1);
      assert.equal(sampleValue(text, 'threatgate_feed_pulls_total', { fid: '7', outcome: 'ok' }), 1);
      assert.equal(sampleValue(text, 'threatgate_feed_last_success_timestamp_seconds', { fid: '7' }), 1_700_000_000);
    }
  });

  it('brings the feed gauges, which only the primary sets, to every worker\'s scrape', async () => {
    const { cluster, spawn } = fakeCluster();
    const primary = createMetrics({ defaultMetrics: false });
    servePrimaryMetrics(cluster, primary.registry);
    const w = spawn();
    const scrape = joinClusterMetrics(w.channel, createMetrics({ defaultMetrics: false }).registry);
    primary.background({ kind: 'feeds', feeds: [{ fid: 3, state: 'ok', lastSuccess: 1_700_000_100, scheduleSeconds: 3600 }] });
    const text = parsePrometheusText(await scrape());
    assert.equal(sampleValue(text, 'threatgate_feed_schedule_seconds', { fid: '3' }), 3600);
    assert.equal(sampleValue(text, 'threatgate_feed_last_success_timestamp_seconds', { fid: '3' }), 1_700_000_100);
  });

  it('leaves out a worker that exits while its registry is awaited', async () => {
    const { cluster, spawn } = fakeCluster();
    const primary = servePrimaryMetrics(cluster, new Registry(), 5000);
    const asking = spawn();
    const leaving = spawn();
    leaving.mute();
    const registry = new Registry();
    new Counter({ name: 'kept_total', help: 'x', registers: [registry] }).inc(5);
    joinClusterMetrics(asking.channel, registry);
    joinClusterMetrics(leaving.channel, new Registry());
    const gathered = primary.gather();
    setTimeout(() => leaving.exit(), 20);
    assert.equal(sampleValue(parsePrometheusText(await gathered), 'kept_total'), 5);
  });

  it('fails the scrape when a worker stays silent, rather than answering a partial sum', async () => {
    const { cluster, spawn } = fakeCluster();
    servePrimaryMetrics(cluster, new Registry(), 100);
    const asking = spawn();
    const silent = spawn();
    silent.mute();
    const scrape = joinClusterMetrics(asking.channel, new Registry());
    await assert.rejects(scrape(), /1 worker\(s\) sent no metrics within 100 ms/);
  });

  it('ignores the messages of other protocols, and answers them no metrics', async () => {
    const { cluster, spawn } = fakeCluster();
    const seen: unknown[] = [];
    cluster.on('message', (_worker: Worker, message: unknown) => seen.push(message));
    servePrimaryMetrics(cluster, new Registry());
    const w = spawn();
    joinClusterMetrics(w.channel, new Registry());
    let replies = 0;
    w.channel.on('message', () => replies++);
    w.channel.send({ type: 'threatgate:rate-limit', id: 1, op: 'get', window: 'day', windowMs: 1, key: 'k' });
    w.channel.send('not even an object');
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(seen.length, 2);
    assert.equal(replies, 0, 'only the metrics protocol\'s own messages get answers from it');
  });
});
