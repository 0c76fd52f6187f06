// The tokens of a STIX 2.1 pattern, cut one at a time as the parser asks, so a pattern refused early is never tokenized whole.
import { ThreatgateError } from '../errors.js';

export type Token =
  | { kind: 'punct'; text: string; at: number }
  | { kind: 'operator'; text: string; at: number }
  | { kind: 'keyword'; text: string; at: number }
  | { kind: 'identifier'; text: string; at: number }
  | { kind: 'string'; value: string; at: number }
  /** Numbers, booleans and the `t'...'`, `b'...'`, `h'...'` literals: never a value here, so only their kind is kept. */
  | { kind: 'literal'; text: string; at: number }
  | { kind: 'end'; at: number };

/** Why a pattern is not read (malformed, past a limit, or outside the subset); its message is the reason given. */
export class PatternNotRead extends ThreatgateError {}

export function malformed(reason: string, at: number): PatternNotRead {
  return new PatternNotRead(`malformed: ${reason} at offset ${at}`);
}

const KEYWORDS = new Set([
  'AND', 'OR', 'NOT', 'FOLLOWEDBY', 'LIKE', 'MATCHES', 'ISSUPERSET', 'ISSUBSET', 'EXISTS', 'LAST', 'IN',
  'START', 'STOP', 'SECONDS', 'WITHIN', 'REPEATS', 'TIMES',
]);

// The STIX grammar's whitespace: ASCII space, tab, CR, LF, VT, FF and the Unicode spaces.
const WHITESPACE = /[ \t\r\n\u000b\u000c\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/;
const IDENTIFIER_START = /[A-Za-z_]/;
const IDENTIFIER_PART = /[A-Za-z0-9_-]/;
const NUMBER = /^[+-]?(?:\d+(?:\.\d+)?|\.\d+)/;

/** Reads a pattern left to right; `next()` gives the `end` token once the text is used up, and again after. */
export class PatternLexer {
  private i = 0;
  constructor(private readonly pattern: string) {}

  next(): Token {
    const pattern = this.pattern;
    while (this.i < pattern.length && WHITESPACE.test(pattern[this.i]!)) this.i++;
    const at = this.i;
    if (at >= pattern.length) return { kind: 'end', at: pattern.length };
    const ch = pattern[at]!;
    // A dot before a digit starts a number (`.5`): a property name never starts with a digit.
    if ('[]():.,*'.includes(ch) && !(ch === '.' && /[0-9]/.test(pattern[at + 1] ?? ''))) {
      this.i++;
      return { kind: 'punct', text: ch, at };
    }
    const two = pattern.slice(at, at + 2);
    if (two === '==' || two === '!=' || two === '<>' || two === '<=' || two === '>=') {
      this.i += 2;
      return { kind: 'operator', text: two === '==' ? '=' : two === '<>' ? '!=' : two, at };
    }
    if (ch === '=' || ch === '<' || ch === '>') {
      this.i++;
      return { kind: 'operator', text: ch, at };
    }
    if (ch === "'") {
      const { value, end } = readString(pattern, at);
      this.i = end;
      return { kind: 'string', value, at };
    }
    if (IDENTIFIER_START.test(ch)) return this.word(at);
    const number = NUMBER.exec(pattern.slice(at, at + 64))?.[0];
    if (number !== undefined) {
      this.i += number.length;
      return { kind: 'literal', text: number, at };
    }
    throw malformed(`unexpected ${JSON.stringify(ch)}`, at);
  }

  /** A keyword, an identifier, a boolean, or a `t'...'`, `b'...'`, `h'...'` literal. */
  private word(at: number): Token {
    const pattern = this.pattern;
    let end = at + 1;
    while (end < pattern.length && IDENTIFIER_PART.test(pattern[end]!)) end++;
    const word = pattern.slice(at, end);
    // t'...' (timestamp), b'...' (base64) and h'...' (hex): their text holds no quote or backslash.
    if ((word === 't' || word === 'b' || word === 'h') && pattern[end] === "'") {
      const close = pattern.indexOf("'", end + 1);
      if (close < 0) throw malformed(`unterminated ${word}'...' literal`, at);
      this.i = close + 1;
      return { kind: 'literal', text: pattern.slice(at, close + 1), at };
    }
    this.i = end;
    const upper = word.toUpperCase();
    if (upper === 'TRUE' || upper === 'FALSE') return { kind: 'literal', text: word, at };
    if (KEYWORDS.has(upper)) return { kind: 'keyword', text: upper, at };
    return { kind: 'identifier', text: word, at };
  }
}

/** The string literal that starts at `start` (a quote): `\'` and `\\` are its only escapes. */
function readString(pattern: string, start: number): { value: string; end: number } {
  let value = '';
  let from = start + 1;
  for (let i = from; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === "'") return { value: value + pattern.slice(from, i), end: i + 1 };
    if (ch === '\\') {
      const escaped = pattern[i + 1];
      if (escaped !== "'" && escaped !== '\\') {
        throw malformed(escaped === undefined ? 'unterminated string' : `invalid escape "\\${escaped}" in a string`, i);
      }
      value += pattern.slice(from, i) + escaped;
      i++;
      from = i + 1;
    }
  }
  throw malformed('unterminated string', start);
}

/** A token as an error message names it; long text is cut, so a reason never carries a megabyte of pattern. */
export function describe(token: Token): string {
  switch (token.kind) {
    case 'end':
      return 'the end';
    case 'string':
      return 'a string';
    case 'keyword':
      return token.text;
    default:
      return JSON.stringify(token.text.length > 40 ? `${token.text.slice(0, 40)}...` : token.text);
  }
}
