// RequestTally (src/metrics/request-tally.ts): requests counted in plain numbers, read into prom-client
// metrics at scrape time as any Counter and Histogram would print them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AggregatorRegistry, Counter, Registry } from 'prom-client';
import { RequestTally } from '../../src/metrics/request-tally.js';
import { parsePrometheusText, sampleValue, samplesOf } from '../helpers/prometheus-text.js';

function registryOf(tally: RequestTally): Registry {
  const registry = new Registry();
  new Counter({ name: 'req_total', help: 'r', labelNames: ['route', 'method', 'status', 'path'] as const, registers: [registry], collect() { tally.fill(this); } });
  registry.registerMetric(tally.histogram('req_seconds', 'd'));
  return registry;
}

describe('RequestTally', () => {
  it('counts by route, method, status and path, any other method as "other"', async () => {
    const tally = new RequestTally([0.01, 0.1]);
    tally.add('/a', 'GET', 200, 0.001);
    tally.add('/a', 'GET', 200, 0.002);
    tally.add('/a', 'HEAD', 200, 0.001);
    tally.add('/a', 'GET', 404, 0.001);
    tally.add('/b/*', 'PROPFIND', 405, 0.001);
    tally.add('/a', 'GET', 200, 0.001, 'fast');
    const text = parsePrometheusText(await registryOf(tally).metrics());
    assert.equal(sampleValue(text, 'req_total', { route: '/a', method: 'GET', status: '200', path: 'express' }), 2);
    assert.equal(sampleValue(text, 'req_total', { route: '/a', method: 'GET', status: '200', path: 'fast' }), 1);
    assert.equal(sampleValue(text, 'req_total', { route: '/a', method: 'HEAD', status: '200' }), 1);
    assert.equal(sampleValue(text, 'req_total', { route: '/a', method: 'GET', status: '404' }), 1);
    assert.equal(sampleValue(text, 'req_total', { route: '/b/*', method: 'other', status: '405' }), 1);
    assert.equal(samplesOf(text, 'req_total').length, 5);
  });

  it('gives cumulative buckets, a bound holding the durations equal to it, +Inf, sum and count', async () => {
    const tally = new RequestTally([0.01, 0.1]);
    for (const seconds of [0.005, 0.01, 0.05, 0.1, 0.5, 2]) tally.add('/a', 'GET', 200, seconds);
    const text = parsePrometheusText(await registryOf(tally).metrics());
    assert.equal(text.types.get('req_seconds'), 'histogram');
    const bucket = (le: string) => sampleValue(text, 'req_seconds_bucket', { route: '/a', le });
    assert.deepEqual([bucket('0.01'), bucket('0.1'), bucket('+Inf')], [2, 4, 6]);
    assert.equal(sampleValue(text, 'req_seconds_count', { route: '/a' }), 6);
    assert.ok(Math.abs(sampleValue(text, 'req_seconds_sum', { route: '/a' }) - 2.665) < 1e-9);
  });

  it('adds up over registries as prom-client\'s own metrics do (the cluster sum)', async () => {
    const one = new RequestTally([0.01]);
    const two = new RequestTally([0.01]);
    one.add('/a', 'GET', 200, 0.001);
    two.add('/a', 'GET', 200, 0.5);
    two.add('/a', 'GET', 429, 0.001);
    const summed = AggregatorRegistry.aggregate([await registryOf(one).getMetricsAsJSON(), await registryOf(two).getMetricsAsJSON()]);
    const text = parsePrometheusText(await summed.metrics());
    assert.equal(sampleValue(text, 'req_total', { route: '/a', status: '200' }), 2);
    assert.equal(sampleValue(text, 'req_total', { route: '/a', status: '429' }), 1);
    assert.equal(sampleValue(text, 'req_seconds_bucket', { route: '/a', le: '0.01' }), 2);
    assert.equal(sampleValue(text, 'req_seconds_bucket', { route: '/a', le: '+Inf' }), 3);
  });
});
