// The `stix` format: a STIX 2.1 bundle, read as it arrives.
import { readStixBundle } from '../parsers/read-stix.js';
import { openFeedBody } from '../transports/feed-body-transport.js';
import type { FormatEntry } from './format-entry.js';
import { sourceSchema } from './source-fields.js';

const schema = sourceSchema('stix', {});

export const stixFormat: FormatEntry<typeof schema> = {
  schema,
  incremental: false,
  paged: false,
  open: (source, context) => openFeedBody(source, 'stix', context, (body) => readStixBundle(body, context.now)),
};
