// Where the STIX sync plugs into the store, for the composition root (main.ts) and the tests.
import type { Config } from './config.js';
import { createStixSync } from './store/stix-sync.js';
import type { ImportHook } from './store/store.js';

/** Every import also records the new STIX object versions and collection memberships. */
export function storeImportHooks(config: Config): ImportHook[] {
  return [createStixSync(config.collections)];
}
