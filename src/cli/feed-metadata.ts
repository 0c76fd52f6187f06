// `feeds add --category C --description D --website URL --pricing P`: a feed's descriptive fields (spec
// Feed), checked as given on the command line before they go into the feed's record.
import type { Feed } from '../domain.js';
import { UsageError } from '../errors.js';
import { hasControlCharacter } from '../sources/control-characters.js';

export const FEED_METADATA_FIELDS = ['category', 'description', 'website', 'pricing'] as const;

export type FeedMetadataField = (typeof FEED_METADATA_FIELDS)[number];

/** The fields `feeds add` sets: a field left out keeps its value, an empty one clears it. */
export type FeedMetadata = Partial<Pick<Feed, FeedMetadataField>>;

/**
 * The longest value of each, in UTF-16 code units as the import's schema counts them: a category
 * and a pricing are a word or two (the import allows 200), a website one URL, and a description a
 * paragraph, which the lookup API returns with every feed and every summary that lists it.
 */
export const FEED_METADATA_LIMITS: Readonly<Record<FeedMetadataField, number>> = { category: 200, description: 10_000, website: 2000, pricing: 200 };

/** `--website`: an absolute http(s) URL; no user name or password, as the lookup API shows it to every client. */
function checkWebsite(value: string): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError('feeds add: --website: must be an absolute http:// or https:// URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`feeds add: --website: must be an http:// or https:// URL, not ${url.protocol}`);
  if (url.username !== '' || url.password !== '') throw new UsageError('feeds add: --website: must not carry a user name or password');
}

/**
 * The descriptive fields among `flags`, trimmed and checked: within FEED_METADATA_LIMITS, no control
 * character (a value is printed by `feeds` commands and logs, one a line), `--website` an http(s)
 * URL or empty. Throws UsageError naming the flag; never echoes the value.
 */
export function feedMetadataFlags(flags: Partial<Record<FeedMetadataField, string | undefined>>): FeedMetadata {
  const metadata: FeedMetadata = {};
  for (const field of FEED_METADATA_FIELDS) {
    const given = flags[field];
    if (given === undefined) continue;
    const value = given.trim();
    if (value.length > FEED_METADATA_LIMITS[field]) throw new UsageError(`feeds add: --${field}: at most ${FEED_METADATA_LIMITS[field]} characters, not ${value.length}`);
    if (hasControlCharacter(value)) throw new UsageError(`feeds add: --${field}: must not hold control characters (line breaks, tabs, escapes)`);
    if (field === 'website' && value !== '') checkWebsite(value);
    metadata[field] = value;
  }
  return metadata;
}
