// Content negotiation for TAXII 2.1 (TAXII 2.1 section 1.6.8, docs/interface.md section 9.3): pure parsing of Accept.
import { rememberBounded } from '../bounded-map.js';

export const TAXII_MEDIA_TYPE = 'application/taxii+json;version=2.1';
export const STIX_MEDIA_TYPE = 'application/stix+json;version=2.1';

interface MediaRange {
  type: string;
  subtype: string;
  params: Map<string, string>;
  q: number;
}

/** Splits on commas and semicolons outside quoted strings (RFC 9110 section 5.6). */
function splitOutsideQuotes(text: string, separator: string): string[] {
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '"' && text[i - 1] !== '\\') quoted = !quoted;
    if (ch === separator && !quoted) {
      parts.push(current);
      current = '';
    } else current += ch;
  }
  parts.push(current);
  return parts;
}

function parseRange(text: string): MediaRange | undefined {
  const [essence, ...paramTexts] = splitOutsideQuotes(text, ';').map((p) => p.trim());
  const match = /^([a-z0-9!#$%&'*+.^_`|~-]+)\/([a-z0-9!#$%&'*+.^_`|~-]+)$/i.exec(essence ?? '');
  if (!match) return undefined;
  const params = new Map<string, string>();
  let q = 1;
  for (const param of paramTexts) {
    if (param === '') continue;
    const eq = param.indexOf('=');
    if (eq <= 0) return undefined;
    const name = param.slice(0, eq).trim().toLowerCase();
    let value = param.slice(eq + 1).trim();
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1);
    if (name === 'q') {
      if (!/^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(value)) return undefined;
      q = Number(value);
    } else params.set(name, value);
  }
  return { type: match[1]!.toLowerCase(), subtype: match[2]!.toLowerCase(), params, q };
}

/** Does one range admit the TAXII 2.1 media type? A range naming another version does not. */
function admitsTaxii21(range: MediaRange): boolean {
  if (range.type === '*' && range.subtype === '*') return true;
  if (range.type !== 'application') return false;
  if (range.subtype === '*') return true;
  if (range.subtype !== 'taxii+json') return false;
  const version = range.params.get('version');
  return version === undefined || version === '2.1';
}

/** How specific a range that admits our type is: the most specific one decides (RFC 9110 section 12.5.1). */
function specificity(range: MediaRange): number {
  if (range.type === '*') return 0;
  if (range.subtype === '*') return 1;
  return range.params.has('version') ? 3 : 2;
}

/**
 * True when the Accept value lets us answer with application/taxii+json;version=2.1: the most
 * specific range that admits it must have q > 0, so an explicit `application/taxii+json;q=0` wins over a wildcard.
 * No Accept at all is refused (docs/interface.md section 9.3): TAXII 2.1 requires clients to send one.
 */
export function acceptsTaxii(accept: string | undefined): boolean {
  if (accept === undefined || accept.trim() === '') return false;
  let best: { specificity: number; q: number } | undefined;
  for (const part of splitOutsideQuotes(accept, ',')) {
    if (part.trim() === '') continue;
    const range = parseRange(part);
    if (!range || !admitsTaxii21(range)) continue;
    const rank = specificity(range);
    if (!best || rank > best.specificity) best = { specificity: rank, q: range.q };
    else if (rank === best.specificity) best.q = Math.max(best.q, range.q);
  }
  return best !== undefined && best.q > 0;
}

/**
 * acceptsTaxii with the answers for recent Accept values remembered: a polling client sends the same
 * one every time. Bounded, since the values come from clients.
 */
export function rememberingAcceptsTaxii(capacity = 256): (accept: string | undefined) => boolean {
  const answers = new Map<string, boolean>();
  return (accept) => {
    if (accept === undefined) return false;
    let answer = answers.get(accept);
    if (answer === undefined) {
      answer = acceptsTaxii(accept);
      rememberBounded(answers, capacity, accept, answer);
    }
    return answer;
  };
}
