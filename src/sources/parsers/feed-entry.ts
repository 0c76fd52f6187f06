// What a feed reader yields: raw entries (not yet normalized) in batches, and the error for a body no reader can use.
import { ThreatgateError } from '../../errors.js';

/** One row of a feed as the source wrote it; the pull normalizes `value` and resolves the rest. */
export interface FeedEntry {
  value: string;
  type?: string;
  threat?: string;
  risk?: string;
  lastSeen?: string;
  /**
   * What the row's other columns said (`csv.attributes`, `json.attributes`; docs/sources.md, "What a pull keeps"), by attribute
   * name: `{"port": ["443"], "tags": ["botnet", "cc"]}`. The pull merges them into the indicator's
   * `attributes`.
   */
  attributes?: Record<string, string[]>;
  /** Where the row is, for messages: `line 12` (text, csv, NDJSON) or `data[3]` (a JSON array). */
  position: string;
  /**
   * The upstream object the value comes from (a STIX indicator id, a MISP attribute's event), for
   * structured formats whose threats arrive as relations to that object (`FeedBatch.relations`).
   */
  ref?: string;
}

/** A threat a structured source names (a STIX malware, intrusion-set, threat-actor or campaign; a MISP galaxy cluster). */
export interface ThreatRef {
  name: string;
  /** Other names (STIX `aliases`, MISP synonyms): an existing threat found by any of them is that threat. */
  aliases: string[];
  /** The category a threat created for it gets (`malware`, `group`, `campaign`, ...; docs/stix-mapping.md, "Threats"). */
  category: string;
}

/** An upstream object (`ref` of entries) indicates a threat: every value of that object is linked to it. */
export interface FeedRelation {
  ref: string;
  threat: ThreatRef;
}

/**
 * A reader's output, one batch per chunk of the body: rows that carry no value (an empty csv cell, a
 * JSON object without the value field) are counted in `skipped`, not errors. Comment and blank
 * lines are not rows and are not counted.
 *
 * Readers yield batches rather than one array for the whole body because a body may reach
 * `maxMegabytes` (256 MB by default): text, csv and NDJSON are read as the chunks arrive, so a
 * pull holds one chunk's entries at a time, not several million.
 */
export interface FeedBatch {
  entries: FeedEntry[];
  skipped: number;
  /**
   * Why rows were skipped, as `POSITION: REASON` (`objects[4]: pattern nested deeper than 100
   * levels`), from the readers that tell (stix, taxii): one per row counted in `skipped`, absent
   * when none was.
   */
  skipReasons?: string[];
  /**
   * Structured formats: threats indicated by upstream objects. A relation may come before or after
   * the entries of its `ref` (another page of a TAXII walk): the pull joins them at its end.
   */
  relations?: FeedRelation[];
  /**
   * Values the upstream says are no longer indicators (docs/interface.md section 10, "Withdrawn values"): a STIX indicator revoked or past
   * its `valid_until`, a MISP attribute deleted or not `to_ids`, a lookup-api row of risk `retired`.
   * The pull takes them out of this feed's listing, and retires those no source lists any more
   * (pull-writer.ts); they never make an indicator or a link, so they carry no `ref`.
   */
  withdrawn?: FeedEntry[];
}

/** Whether a batch gives anything: readers of paged formats leave out the pages that give nothing. */
export function hasContent(batch: FeedBatch): boolean {
  return batch.entries.length > 0 || batch.skipped > 0 || (batch.relations?.length ?? 0) > 0 || (batch.withdrawn?.length ?? 0) > 0;
}

/** The body cannot be used at all, so the pull fails and changes nothing (docs/interface.md section 10, "Pulls"). */
export class FeedFormatError extends ThreatgateError {
  constructor(
    readonly position: string,
    readonly reason: string,
  ) {
    super(`${position}: ${reason}`);
  }
}
