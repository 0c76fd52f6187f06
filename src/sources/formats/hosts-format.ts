// The `hosts` format (docs/sources.md, "Feed shapes"): a hosts file (StevenBlack, URLhaus's hostfile, Pi-hole and AdGuard lists), its names the values.
import { readHosts } from '../parsers/read-hosts.js';
import { openFeedBody } from '../transports/feed-body-transport.js';
import type { FormatEntry } from './format-entry.js';
import { sourceSchema } from './source-fields.js';

const schema = sourceSchema('hosts', {});

/** A full list: the sanity gate applies, and a name the file no longer lists leaves the feed's listing. */
export const hostsFormat: FormatEntry<typeof schema> = {
  schema,
  incremental: false,
  paged: false,
  open: (source, context) => openFeedBody(source, 'hosts', context, readHosts),
};
