// The sanity gate of a full-list pull (docs/interface.md section 10, "The sanity gate"): before anything is written, a pull whose
// result does not look like the list its source has been giving fails as an outage, with a reason
// that says what was expected, rather than replacing the list with an error page, a typo's zero or
// (with maxChurn) a list that is suddenly another one.
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

/**
 * A churn (0 to 1) as a person reads it: a whole percent, a tenth of one below 10%, `<0.1%` for a
 * little that rounds to nothing; `-` for none (a failed run, a first pull, an incremental source).
 */
export function churnPercent(churn: number | null): string {
  if (churn === null) return '-';
  const percent = churn * 100;
  if (percent > 0 && percent < 0.05) return '<0.1%';
  return `${percent < 10 ? Math.round(percent * 10) / 10 : Math.round(percent)}%`;
}

/**
 * Why a full-list pull that would replace more of the listing than the source's `maxChurn` must not
 * be kept, or undefined when it may (docs/sources.md): `overlap` is how many of the pull's distinct
 * values the feed lists now, counted by the store once the values are staged. Without maxChurn,
 * or without a previous listing, churn refuses nothing.
 */
export function churnFailure(overlap: number, context: GateContext): string | undefined {
  const { source, previous } = context;
  if (source.maxChurn === undefined || previous <= 0) return undefined;
  const replaced = Math.max(0, previous - overlap);
  const churn = replaced / previous;
  if (churn <= source.maxChurn) return undefined;
  return `the pull would replace ${churnPercent(churn)} of the previous listing (${replaced} of its ${previous} values no longer listed), more than maxChurn (${source.maxChurn}); kept as an outage`;
}
