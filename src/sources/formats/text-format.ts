// The `text` format: one value a line, as Spamhaus DROP, blocklist.de and OpenPhish publish.
import { readText } from '../parsers/read-text.js';
import { openFeedBody } from '../transports/feed-body-transport.js';
import type { FormatEntry } from './format-entry.js';
import { sourceSchema } from './source-fields.js';

const schema = sourceSchema('text', {});

export const textFormat: FormatEntry<typeof schema> = {
  schema,
  incremental: false,
  paged: false,
  open: (source, context) => openFeedBody(source, 'text', context, readText),
};
