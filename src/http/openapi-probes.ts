// The Operations tag of the OpenAPI document: /healthz, /readyz, /openapi.json and /metrics, with no key and no rate limits.
import { z } from 'zod';
import type { OpenApiSurface } from './openapi-declarations.js';
import { JSON_TYPE } from './openapi-json.js';
import { ERROR_MEANINGS, ErrorBody } from './openapi-shared.js';

const TAG = 'Operations';

export const Liveness = z.strictObject({ status: z.literal('ok') });

export const Readiness = z.strictObject({
  status: z.literal('ready'),
  puller: z
    .enum(['up', 'down', 'off'])
    .describe('The thread that pulls source feeds: `up`, `down` (it died and is being restarted; lookups are still served), or `off` (this instance runs none).'),
  pullerRestarts: z.int().min(0).optional().describe('Times the puller was restarted since the process started (absent when `off`).'),
});

export const NotReady = z.strictObject({ status: z.literal('unavailable'), error: z.string() });

/** Only what tells a reader it is the right document; the OpenAPI test validates the rest against the OpenAPI 3.1 schema. */
export const OpenApiDocument = z.looseObject({
  openapi: z.string().regex(/^3\.1\.\d+$/),
  info: z.looseObject({}),
  paths: z.looseObject({}),
});

export function probesOpenApi(): OpenApiSurface {
  return {
    tags: [{ name: TAG, description: 'Probes, metrics and this document: no key, no rate limits.' }],
    schemas: { Liveness, Readiness, NotReady, OpenApiDocument },
    operations: [
      {
        path: '/healthz',
        method: 'get',
        tags: [TAG],
        operationId: 'getLiveness',
        summary: 'Liveness',
        description: 'The process runs. No key, not rate limited, not cached.',
        security: [],
        responses: { '200': { description: 'Up.', content: { [JSON_TYPE]: Liveness } } },
      },
      {
        path: '/readyz',
        method: 'get',
        tags: [TAG],
        operationId: 'getReadiness',
        summary: 'Readiness',
        description: 'The store answers within 2 s and its migrations are current. No key, not rate limited, not cached.',
        security: [],
        responses: {
          '200': { description: 'Ready.', content: { [JSON_TYPE]: Readiness } },
          '503': { description: 'The store cannot be reached or is not migrated.', content: { [JSON_TYPE]: NotReady } },
        },
      },
      {
        path: '/openapi.json',
        method: 'get',
        tags: [TAG],
        operationId: 'getOpenApiDocument',
        summary: 'This document',
        description: 'No key, not rate limited; built once per process from the running configuration.',
        security: [],
        parameters: ['pretty'],
        responses: {
          '200': { description: 'The OpenAPI 3.1 document.', content: { [JSON_TYPE]: OpenApiDocument } },
          '400': { description: ERROR_MEANINGS[400]!, content: { [JSON_TYPE]: ErrorBody } },
        },
      },
      {
        path: '/metrics',
        method: 'get',
        tags: [TAG],
        operationId: 'getMetrics',
        summary: 'Prometheus metrics',
        description:
          'Prometheus text exposition format (prom-client), summed over the `--workers` processes: requests by route and status with durations, rate-limit refusals by plan, cache hits, store errors, feed pulls, lifecycle retirements. No key, not rate limited; keep it off the public internet (docs/deployment.md).',
        security: [],
        responses: {
          '200': { description: 'The metrics.', content: { 'text/plain': z.string() } },
          '404': { description: 'Metrics are turned off (`metrics.enabled` is false).', content: { [JSON_TYPE]: ErrorBody } },
        },
      },
    ],
  };
}
