// Where the TAXII gateway plugs into the composition root.
import type { AppDeps } from './app.js';
import type { Config } from './config.js';
import { createStixSync } from './store/stix-sync.js';
import type { ImportHook } from './store/store.js';
import { createTaxiiRouter } from './taxii/taxii-router.js';

/** Every import also records the new STIX object versions and collection memberships. */
export function storeImportHooks(config: Config): ImportHook[] {
  return [createStixSync(config.collections)];
}

/** The gateway at /taxii2; the `next` secret is read once from the store (or given, in tests). */
export function taxiiRouters(options: { nextSecret?: string } = {}): NonNullable<AppDeps['extraRouters']> {
  return [
    (shared) => {
      let secret: Promise<string> | undefined = options.nextSecret === undefined ? undefined : Promise.resolve(options.nextSecret);
      const nextSecret = () =>
        (secret ??= shared.store.nextTokenSecret().catch((error: unknown) => {
          secret = undefined; // a store that was down must be asked again next time
          throw error;
        }));
      return { path: '/taxii2', router: createTaxiiRouter({ ...shared, nextSecret }) };
    },
  ];
}
