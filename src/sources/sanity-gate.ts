// The sanity gate of a full-list pull (DESIGN 7, issue 27): before anything is written, a pull whose
// result does not look like the list its source has been giving fails as an outage, with a reason
// that says what was expected, rather than replacing the list with an error page or a typo's zero.
import type { SourceDefinition } from './source-definition.js';

/** What a full-list pull read, counted when its rows have all been read. */
export interface GateCounts {
  /** Rows whose value was accepted (normalized, not allowlisted); a value listed twice counts twice. */
  accepted: number;
  rejected: number;
  /** Rows without a value (an empty csv cell, a JSON object without the value field). */
  skipped: number;
}

/** What the gate knows of the source and its previous pulls. */
export interface GateContext {
  source: SourceDefinition;
  /** Values the feed's latest good pull listed (its listing now). */
  previous: number;
  /** The feed has never been pulled successfully. */
  first: boolean;
  /** Bytes of the body read (undefined for a paged source). */
  bodyBytes?: number;
}

/** What a source of this format was expected to give, for reasons. */
function expected(source: GateContext['source']): string {
  switch (source.format) {
    case 'text':
      return 'one value a line (a JSON or CSV body needs format json or csv)';
    case 'csv':
      return `a value in column "${source.csv.value}" (csv.value) of each row`;
    case 'json':
      return `a value at "${source.json.value}" (json.value) of each object`;
    case 'stix':
      return 'indicators whose patterns name supported values';
    case 'hosts':
      return 'host names on "ADDRESS NAME" lines or one a line';
    default:
      return 'indicator values in the links pages';
  }
}

/** Why the pull must not be kept, or undefined when it may. A count of 0 where values were listed is left to the writer's outage check. */
export function gateFailure(counts: GateCounts, context: GateContext): string | undefined {
  const { source, previous } = context;
  const { accepted, rejected } = counts;
  // Rows without a value count against a list format: a renamed field leaves most rows empty. A
  // STIX bundle's other objects are no such rows.
  const refused = rejected + (['text', 'csv', 'json', 'hosts'].includes(source.format) ? counts.skipped : 0);
  if (accepted === 0 && context.first && (context.bodyBytes ?? 0) > 0) {
    const detail = refused > 0 ? `${rejected} rows rejected and ${counts.skipped} without a value` : 'no row held a value';
    return `the first pull read no values from a body of ${context.bodyBytes} bytes (${detail}): expected ${expected(source)}`;
  }
  if (accepted > 0 && refused > accepted) {
    return `${refused} rows rejected or without a value against ${accepted} accepted: expected ${expected(source)}; kept as an outage`;
  }
  if (accepted > 0 && previous > 0 && accepted < source.minRatio * previous) {
    return `the source listed ${accepted} values where its last good pull listed ${previous}, fewer than minRatio (${source.minRatio}) of them; kept as an outage`;
  }
  return undefined;
}

const HTML_START = /^(?:\uFEFF)?\s*(?:<!doctype\s+html|<html[\s>]|<head[\s>]|<body[\s>]|<!--)/i;

/**
 * Whether a body is an HTML page (a login, an error or a "this list moved" page), by its first
 * bytes: some servers send plain lists as text/html, so the Content-Type alone does not decide.
 */
export function htmlPage(head: Buffer): boolean {
  return HTML_START.test(head.toString('utf8'));
}
