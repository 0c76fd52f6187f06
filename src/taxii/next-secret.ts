// The secret that signs `next` tokens: one for every instance (kept in the store), read on first use.
import type { Store } from '../store/contract/store.js';

/**
 * The secret from the store, read once and kept; a store that was down is asked again next time.
 * `given` replaces it (tests sign with a fixed one).
 */
export function createNextSecretReader(store: Pick<Store, 'nextTokenSecret'>, given?: string): () => Promise<string> {
  let secret: Promise<string> | undefined = given === undefined ? undefined : Promise.resolve(given);
  return () =>
    (secret ??= store.nextTokenSecret().catch((error: unknown) => {
      secret = undefined;
      throw error;
    }));
}
