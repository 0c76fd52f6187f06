// Where the TAXII gateway plugs into the composition root (filled in by the TAXII surface).
import type { AppDeps } from './app.js';
import type { Config } from './config.js';
import type { ImportHook } from './store/store.js';

export function storeImportHooks(_config: Config): ImportHook[] {
  return [];
}

export function taxiiRouters(): NonNullable<AppDeps['extraRouters']> {
  return [];
}
