// Who holds a feed's pull lease, as the `feeds` commands that wait for it or refuse name it.
import { formatStamp } from '../clock.js';
import type { Store } from '../store/contract/store.js';

/** Exit code of a `feeds` command that left a feed alone because another holder pulls it: EX_TEMPFAIL, try again later. */
export const EXIT_BUSY = 75;

/** `OWNER since T` of the feed's lease, or `another process` when it was released meanwhile. */
export async function leaseHolder(store: Store, fid: number): Promise<string> {
  const lease = await store.findPullLease(fid);
  return lease === undefined ? 'another process' : `${lease.owner}${lease.since === null ? '' : ` since ${formatStamp(lease.since)}`}`;
}
