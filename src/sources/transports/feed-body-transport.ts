// The transport of the one-body formats (text, csv, json, stix): the body fetched with the previous pull's validators, spooled, unpacked when compressed (gzip, zip) and hashed before anything reads it.
import { PullRefused } from '../../store/contract/commands.js';
import type { OpenContext, SourceRead } from '../formats/format-entry.js';
import type { CommonSource } from '../formats/source-fields.js';
import type { FeedBody } from '../parsers/feed-body.js';
import type { FeedBatch } from '../parsers/feed-entry.js';
import { unpackBody } from './decompress-body.js';
import { fetchSource } from './fetch-source.js';
import { htmlPage } from './html-page.js';
import { spoolBody } from './spool-body.js';

/**
 * Fetches the source's body, conditional on the previous pull's validators, unpacks it when it is
 * gzip or a zip archive (decompress-body.ts), and gives it to `parse` unless it need not be read: a
 * 304, or the same bytes as the previous pull's body (both a pull that sees the same values again:
 * docs/interface.md section 10, "Pulls"). A body that is an HTML page where a list of `format` was
 * expected is refused as an outage (the sanity gate, same section), unless the pull is forced.
 */
export async function openFeedBody(
  source: CommonSource,
  format: string,
  context: OpenContext,
  parse: (body: FeedBody) => AsyncIterable<FeedBatch>,
): Promise<SourceRead> {
  const { state } = context;
  const fetched = await fetchSource(source, { etag: state.etag, lastModified: state.last_modified }, context.fetch);
  // A 304 keeps the validators it was asked with.
  if (fetched.kind === 'not-modified') return { rows: undefined, etag: state.etag, lastModified: state.last_modified, bodyHash: state.body_hash };
  const validators = { etag: fetched.etag, lastModified: fetched.lastModified };
  // The hash, the HTML sniff and the sanity gate's size are of the unpacked body, what the parser reads:
  // a list packed again unchanged (a new gzip time stamp, new zip dates) is the same list.
  const { body: spooled, mislabelled } = await unpackBody(await spoolBody(fetched.body), source, fetched.headers, context.fetch);
  if (mislabelled !== undefined) context.warn(`pull: ${mislabelled}`, { url: context.fetch.displayUrl });
  if (spooled.hash === state.body_hash) {
    await spooled.remove();
    return { rows: undefined, ...validators, bodyHash: spooled.hash };
  }
  // A login, error or "this list moved" page is no list: read as one, it would replace the feed's values.
  if (htmlPage(spooled.head) && !context.force) {
    await spooled.remove();
    const type = fetched.headers.get('content-type');
    throw new PullRefused(
      `the body is an HTML page${type ? ` (${type.split(';')[0]!.trim()})` : ''} where a ${format} list was expected: the feed may have moved or need a login; kept as an outage (feeds pull --force keeps such a pull once)`,
    );
  }
  return { rows: parse(spooled.open()), ...validators, bodyHash: spooled.hash, bodyBytes: spooled.bytes, done: spooled.remove };
}
