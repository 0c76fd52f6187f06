// Requests to the TAXII gateway as a TAXII client sends them, and the checks every TAXII test repeats.
import assert from 'node:assert/strict';
import type { Express } from 'express';
import request, { type Response } from 'supertest';

/** Written out, not imported from src: the exact bytes TAXII clients compare against. */
export const TAXII_TYPE = 'application/taxii+json;version=2.1';
export const STIX_TYPE = 'application/stix+json;version=2.1';

export const TEST_COLLECTION = '981c4916-ebb2-4567-aece-54ae970c4230';
export const INDICATORS_COLLECTION = 'a5cffbfe-c0ff-4842-a235-cb3a7a040a37';

export const collectionPath = (id: string) => `/taxii2/api/collections/${id}/`;

export function basicAuth(key: string, username = 'taxii2'): string {
  return `Basic ${Buffer.from(`${username}:${key}`).toString('base64')}`;
}

/** GET with `Authorization: Basic taxii2:KEY` and the TAXII 2.1 Accept (or the one given; null sends none). */
export function taxiiGet(app: Express, path: string, key: string, accept: string | null = TAXII_TYPE) {
  const req = request(app).get(path).set('Authorization', basicAuth(key));
  return accept === null ? req : req.set('Accept', accept);
}

/** The response is a TAXII error resource (TAXII 2.1 section 3.6.1) with the TAXII media type, exactly. */
export function assertTaxiiError(res: Response, status: number): void {
  assert.equal(res.status, status, res.text);
  assert.equal(res.headers['content-type'], TAXII_TYPE);
  const body = JSON.parse(res.text) as Record<string, unknown>;
  assert.equal(typeof body.title, 'string');
  assert.ok((body.title as string).length > 0, 'empty title');
  assert.equal(typeof body.description, 'string');
  assert.equal(body.http_status, String(status));
  assert.equal(typeof body.error_code, 'string');
}

export interface Page {
  status: number;
  body: { more: boolean; next?: string; objects?: Record<string, unknown>[]; versions?: string[] };
  first: string | undefined;
  last: string | undefined;
}

/** Follows `next` from `path` (which carries the first request's parameters) to the end of the walk. */
export async function walk(app: Express, key: string, path: string): Promise<Page[]> {
  const pages: Page[] = [];
  let url = path;
  for (let guard = 0; guard < 10_000; guard++) {
    const res = await taxiiGet(app, url, key);
    assert.equal(res.status, 200, res.text);
    pages.push({ status: res.status, body: JSON.parse(res.text), first: res.headers['x-taxii-date-added-first'], last: res.headers['x-taxii-date-added-last'] });
    const { more, next } = pages.at(-1)!.body;
    if (!more) return pages;
    assert.equal(typeof next, 'string', 'more: true must come with next');
    const base = path.split('?')[0]!;
    const limit = new URL(path, 'http://x').searchParams.get('limit');
    url = `${base}?next=${encodeURIComponent(next!)}${limit ? `&limit=${limit}` : ''}`;
  }
  throw new Error(`no end of the walk from ${path}`);
}
