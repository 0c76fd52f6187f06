// A feed's source object as a file or `feeds add` writes it, in the write's transaction (a `sources` batch).
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';

/**
 * Creates or replaces a feed's source, in the transaction of an import (the one way data gets in,
 * `feeds add` included). A changed definition starts its pull state afresh (the validators and
 * backoff belonged to the old source) and makes it due at once; the same definition again changes nothing.
 */
export async function upsertFeedSource(trx: Kysely<Database>, fid: number, definition: string, stamp: string): Promise<void> {
  await trx
    .insertInto('feed_sources')
    .values({ fid, definition, stamp_added: stamp, stamp_updated: stamp, etag: null, last_modified: null, last_error: null, last_error_at: null, next_due: null, body_hash: null })
    .onConflict((oc) =>
      oc
        .column('fid')
        .doUpdateSet({ definition, stamp_updated: stamp, etag: null, last_modified: null, last_error: null, last_error_at: null, failures: 0, next_due: null, body_hash: null })
        .where('feed_sources.definition', '<>', definition),
    )
    .execute();
}
