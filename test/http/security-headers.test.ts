// The security headers worked out once at start-up: on every response exactly what helmet's middleware writes there.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import express, { type RequestHandler } from 'express';
import helmet from 'helmet';
import request from 'supertest';
import { API_HELMET_OPTIONS, createSecurityHeaders } from '../../src/http/security-headers.js';

/** An app whose only middleware is `headers`, behind a proxy it trusts (so that X-Forwarded-Proto decides req.secure). */
function appWith(...headers: RequestHandler[]) {
  const app = express();
  app.set('trust proxy', true);
  app.disable('x-powered-by');
  app.use(...headers, (_req, res) => void res.end('ok'));
  return app;
}

/** Header lines in the order they were sent, Date aside. */
async function headerLines(app: express.Express, forwardedProto: string): Promise<string[]> {
  const res = await request(app).get('/').set('X-Forwarded-Proto', forwardedProto);
  // superagent keeps node's response, whose rawHeaders have the lines in order.
  const raw = (res as unknown as { res: { rawHeaders: string[] } }).res.rawHeaders;
  const lines: string[] = [];
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() !== 'date') lines.push(`${raw[i]}: ${raw[i + 1]}`);
  return lines;
}

describe('createSecurityHeaders', () => {
  const once = appWith(createSecurityHeaders().middleware);
  const hsts = helmet.strictTransportSecurity();
  const perRequest = appWith(helmet(API_HELMET_OPTIONS), (req, res, next) => (req.secure ? hsts(req, res, next) : next()));

  it('sets over HTTP the lines helmet sets per request, in its order, without Strict-Transport-Security', async () => {
    const lines = await headerLines(once, 'http');
    assert.deepEqual(lines, await headerLines(perRequest, 'http'));
    assert.ok(lines.includes("Content-Security-Policy: default-src 'none';frame-ancestors 'none'"));
    assert.ok(!lines.some((line) => line.startsWith('Strict-Transport-Security')));
  });

  it("adds helmet's Strict-Transport-Security over HTTPS, as helmet does", async () => {
    const lines = await headerLines(once, 'https');
    assert.deepEqual(lines, await headerLines(perRequest, 'https'));
    assert.ok(lines.some((line) => line.startsWith('Strict-Transport-Security: max-age=')));
  });

  it('gives the same lines as a list written with the body (the fast path), over HTTP and HTTPS, each list its own', async () => {
    const headers = createSecurityHeaders();
    const listed = appWith((req, res) => {
      const list = headers.list(req.secure);
      list.setHeader('Content-Length', 2);
      list.writeHead(res, 200);
      res.end('ok');
    });
    for (const proto of ['http', 'https']) {
      const expected = await headerLines(appWith(headers.middleware, (_req, res, next) => (res.setHeader('Content-Length', 2), next())), proto);
      assert.deepEqual(await headerLines(listed, proto), expected, proto);
    }
    const first = headers.list(false);
    first.setHeader('X-Frame-Options', 'changed');
    const lines = await headerLines(listed, 'http');
    assert.ok(lines.includes('X-Frame-Options: SAMEORIGIN'), 'a list changed by one response leaves the next one as helmet sets it');
  });

  it('removes what helmet removes: an X-Powered-By set before it', async () => {
    const poweredBy: RequestHandler = (_req, res, next) => {
      res.setHeader('X-Powered-By', 'Express');
      next();
    };
    const lines = await headerLines(appWith(poweredBy, createSecurityHeaders().middleware), 'http');
    assert.ok(!lines.some((line) => line.toLowerCase().startsWith('x-powered-by')));
  });
});
