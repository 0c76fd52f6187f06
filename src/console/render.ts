// Sends a console page: the JSX rendered to HTML (text and attributes escaped by preact-render-to-string), with the console's own headers.
import type { Response } from 'express';
import type { VNode } from 'preact';
import { render } from 'preact-render-to-string';

/**
 * Only threatgate's own scripts, styles and images, and forms posted only to itself: no inline script
 * or style (an injected tag or attribute does nothing), no third-party host, no framing (clickjacking),
 * no `<base>` that would move relative URLs elsewhere. CSP Level 3, `form-action` and
 * `frame-ancestors` are not covered by `default-src`, so they are named.
 */
export const CONSOLE_CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** Sets the headers every console response carries, pages and refusals alike. */
export function setPageHeaders(res: Response): void {
  res.setHeader('Content-Security-Policy', CONSOLE_CSP);
  // The app's `no-referrer` would make a browser send `Origin: null` with the console's own form posts
  // (Fetch, "serializing a request origin"), which the Origin check must refuse; `same-origin` sends the
  // origin to the console itself and still nothing to any other site.
  res.setHeader('Referrer-Policy', 'same-origin');
  // A page shows the operator's view of the sources as it is now, and a signed-in session's token:
  // neither a browser's history cache nor a proxy may keep it (RFC 9111 section 5.2.2.5).
  res.setHeader('Cache-Control', 'no-store');
}

/**
 * Renders `page` (a whole document, Page from layout.tsx) and sends it as UTF-8 HTML. The console's
 * headers are already on the response: the router sets them before every route but the assets, and
 * the error renderer for an asset's error.
 */
export function sendPage(res: Response, page: VNode, status = 200): void {
  res.status(status).type('text/html; charset=utf-8').send(`<!DOCTYPE html>\n${render(page)}`);
}
