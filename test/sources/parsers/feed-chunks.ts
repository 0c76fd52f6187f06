// Test helpers: a fixture or text fed to a reader in chunks cut at awkward places.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { FeedBody } from '../../../src/sources/parsers/feed-body.js';
import type { FeedBatch } from '../../../src/sources/parsers/feed-entry.js';

/** Whole, every 7 bytes (cuts quotes, CRLFs and UTF-8 sequences), every byte, and as 5-character strings. */
export const CUTS = [
  { name: 'in one chunk', size: Infinity, text: false },
  { name: 'in 7-byte chunks', size: 7, text: false },
  { name: 'in 1-byte chunks', size: 1, text: false },
  { name: 'in 5-character string chunks', size: 5, text: true },
] as const;

export function fixture(name: string): Buffer {
  return readFileSync(new URL(`../../fixtures/feeds/${name}`, import.meta.url));
}

export async function* chunked(body: Buffer | string, size: number, asText = false): FeedBody {
  const whole = asText ? body.toString() : Buffer.from(body);
  for (let at = 0; at < whole.length; at += Math.min(size, whole.length)) {
    yield whole.slice(at, at + size);
  }
}

/** Reads `body` with `reader` once per cut; each result must equal the others, and the first is returned. */
export async function readEveryWay(body: Buffer | string, reader: (body: FeedBody) => AsyncIterable<FeedBatch>): Promise<FeedBatch> {
  const results: FeedBatch[] = [];
  for (const cut of CUTS) results.push(await collectEntries(reader(chunked(body, cut.size, cut.text))));
  const [first, ...others] = results;
  others.forEach((other, i) => assert.deepEqual(other, first, `read ${CUTS[i + 1]!.name}`));
  return first!;
}

/** Reads `body` once per cut; each must fail with the same `FeedFormatError`. */
export async function rejectsEveryWay(body: Buffer | string, reader: (body: FeedBody) => AsyncIterable<FeedBatch>, message: string | RegExp): Promise<void> {
  for (const cut of CUTS) {
    await assert.rejects(collectEntries(reader(chunked(body, cut.size, cut.text))), { name: 'FeedFormatError', message }, `read ${cut.name}`);
  }
}

/** All entries of a reader's batches in one result, to compare with what the reader should give. */
export async function collectEntries(batches: AsyncIterable<FeedBatch>): Promise<FeedBatch> {
  const all: FeedBatch = { entries: [], skipped: 0 };
  for await (const batch of batches) {
    // One by one: spreading a large batch into push() can exceed the argument limit.
    for (const entry of batch.entries) all.entries.push(entry);
    for (const entry of batch.withdrawn ?? []) (all.withdrawn ??= []).push(entry);
    all.skipped += batch.skipped;
  }
  return all;
}
