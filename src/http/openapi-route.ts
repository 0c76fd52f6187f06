// GET /openapi.json: the OpenAPI document, built and serialized once per app; no key, no rate limits.
import { readFileSync } from 'node:fs';
import { Router } from 'express';
import type { Config } from '../config.js';
import { methodNotAllowed } from './method-guard.js';
import type { OpenApiSurface } from './openapi-declarations.js';
import { buildOpenApiDocument } from './openapi-document.js';
import { prettyParam } from './query-params.js';
import { sendJsonText, serialize } from './send-json.js';

/** The package version (package.json sits two folders up from src/http and from dist/http alike). */
function packageVersion(): string {
  try {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: unknown };
    return typeof version === 'string' ? version : '0.0.0';
  } catch {
    return '0.0.0';
  }
}

/** `surfaces`: each mounted surface's declarations (the probes' are added here). */
export function createOpenApiRoute(config: Config, surfaces: readonly OpenApiSurface[]): Router {
  const document = buildOpenApiDocument(config, packageVersion(), surfaces);
  const bodies = { compact: Buffer.from(serialize(document, false), 'utf8'), pretty: Buffer.from(serialize(document, true), 'utf8') };
  const router = Router();
  router
    .route('/openapi.json')
    .get((req, res) => {
      const pretty = prettyParam(req);
      // The document changes only with the config or a new version, i.e. with a restart.
      // Public, and readable by browser-based tools on other origins (API explorers, client generators).
      res.set({ 'Cache-Control': 'public, max-age=300', 'Access-Control-Allow-Origin': '*' });
      sendJsonText(res, pretty ? bodies.pretty : bodies.compact);
    })
    .all(methodNotAllowed(['GET', 'HEAD']));
  return router;
}
