// What every page of the operator console (docs/interface.md section 14) is built from, and what the session gives each signed-in request.
import type { Response } from 'express';
import type { AdminDeps } from '../admin/admin-router.js';

/** The operator API's: the console is its pages, with the same key check (createApp's `forAdmin`) and the same means of a pull. */
export type ConsoleDeps = AdminDeps;

/** What a page of a signed-in request needs: the session's CSRF token for its forms, the admin key's id and label, the path asked for. */
export interface PageContext {
  /** The value of the hidden `_csrf` field every form posts (CsrfField in layout.tsx). */
  csrf: string;
  /** The public id of the admin key the session was opened with (never the key). */
  keyId: string;
  /** That key's label, or null when it has none: with the id, who the console reports a sighting as. */
  keyLabel: string | null;
  /** The path of the request (`/console/feeds/3`), for the navigation's current page. */
  path: string;
}

/** The console's own paths: the navigation links to them, and the session keeps only these as a login's `next`. */
export const CONSOLE_ROOT = '/console';
export const CONSOLE_PATHS = {
  feeds: '/console/',
  feed: (fid: number) => `/console/feeds/${fid}`,
  pull: (fid: number) => `/console/feeds/${fid}/pull`,
  value: '/console/value',
  threat: (tid: number) => `/console/threats/${tid}`,
  explore: '/console/explore',
  exploreCsv: '/console/explore.csv',
  allowlist: '/console/allowlist',
  exports: '/console/exports',
  login: '/console/login',
  logout: '/console/logout',
  assets: '/console/assets',
} as const;

/** The page context the session middleware set; reading it on a route the session does not guard is a mistake in the route table. */
export function pageContext(res: Response): PageContext {
  const page = res.locals.page as PageContext | undefined;
  if (page === undefined) throw new Error('the console page context was read before the session middleware set it');
  return page;
}
