// The operator console's route table (docs/interface.md section 14, /console/): its assets, login and logout, then the signed-in pages.
import { fileURLToPath } from 'node:url';
import express, { Router, type RequestHandler } from 'express';
import { methodNotAllowed } from '../http/method-guard.js';
import type { ConsoleDeps } from './console-deps.js';
import { consoleNotFound, createConsoleErrorRenderer } from './console-errors.js';
import { createDataPages } from './data-pages.js';
import { createExplorePage } from './explore-page.js';
import { createExportsPage } from './exports-page.js';
import { createFeedsPages } from './feeds-pages.js';
import { createLoginRoutes } from './login-routes.js';
import { setPageHeaders } from './render.js';
import { createConsoleSessions } from './session.js';
import { createThreatPages } from './threat-routes.js';

/**
 * The stylesheet and script, served from threatgate's own package (nothing from a CDN): the folder
 * beside src/ and dist/, found from this module's URL in either layout.
 */
export const CONSOLE_ASSETS_DIR = fileURLToPath(new URL('../../console-assets/', import.meta.url));

const pageHeaders: RequestHandler = (_req, res, next) => {
  setPageHeaders(res);
  next();
};

/**
 * Mounted at /console only, so the lookup API, TAXII and the exports parse no forms and read no
 * sessions. Checked in order: the assets (no session), the form body, the session (a bad cookie is
 * no session), login; then the session is required (303 to the login page), every POST's Origin and
 * CSRF token (403), the pages, and a 404 page for any other path.
 */
export function createConsoleRouter(deps: ConsoleDeps): Router {
  const sessions = createConsoleSessions(deps.store, () => deps.clock.now());
  const { showLogin, login, logout } = createLoginRoutes(deps, sessions);
  const router = Router();

  router.use('/assets', express.static(CONSOLE_ASSETS_DIR, { index: false, redirect: false, fallthrough: false, dotfiles: 'ignore' }));
  router.use(pageHeaders, express.urlencoded({ extended: false, limit: '16kb' }), sessions.read);

  router.route('/login').get(showLogin).post(login).all(methodNotAllowed(['GET', 'HEAD', 'POST']));

  router.use(sessions.require, sessions.checkForm);
  router.route('/logout').post(logout).all(methodNotAllowed(['POST']));
  router.use(createFeedsPages(deps));
  router.use(createDataPages(deps));
  router.use(createThreatPages(deps));
  router.use(createExplorePage(deps));
  router.use(createExportsPage(deps));

  router.use(consoleNotFound);
  router.use(createConsoleErrorRenderer(deps.logger));
  return router;
}
