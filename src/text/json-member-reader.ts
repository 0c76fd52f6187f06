// What a reader of the JSON member scanner (json-member-scanner.ts) says and is told: how each member is read, what is wrong with a document, and where.
import type { TextPoint } from './text-position.js';

/**
 * How a member's value is read: each element of an array parsed alone, the whole value parsed, or
 * passed over; `elements-or-value` cuts an array into its elements and parses anything else whole.
 */
export type MemberRead = 'elements' | 'elements-or-value' | 'value' | 'skip';

/** What is wrong with a document; the reader words it. */
export type JsonProblem =
  | { code: 'empty' } // no text at all
  | { code: 'not-object' } // the first character is not `{` (nor `[`, for a reader with `rootArray`)
  | { code: 'expected-name'; found: string }
  | { code: 'bad-name' } // a member name that is not a valid JSON string
  | { code: 'expected-colon'; name: string }
  | { code: 'not-array'; name: string } // a member read as 'elements'
  | { code: 'empty-element' } // `[1,]`, `[,1]`
  | { code: 'expected-element-end'; found: string }
  | { code: 'expected-member-end'; found: string }
  | { code: 'trailing-text' }
  | { code: 'truncated' }
  | { code: 'invalid-json'; reason: string };

/** An element being read or just read: set with the problems about one element, else undefined. */
export interface ElementPlace {
  member: string;
  index: number;
}

/** What a document means to its reader: which members it reads and how, what it makes of them, how it reports a problem. */
export interface MemberReader<T> {
  /** The member a document that is an array stands for: its elements are given as that member's. Without it, such a document is refused (`not-object`). */
  readonly rootArray?: string;
  /** How to read the member `name`; called when its value starts, so it may also refuse a name or a repeat by throwing. */
  readAs(name: string): MemberRead;
  /** One element of a member read as 'elements' (or 'elements-or-value'), parsed, made into what `push` returns. */
  element(member: string, index: number, value: unknown): T;
  /** A member read as 'value' (or 'elements-or-value', when it is not an array), parsed. */
  value?(name: string, value: unknown): void;
  /**
   * Throws the reader's error for a problem; `place` names the element it is about, if any, and `at`
   * where in the text it is: the offending character, the point JSON.parse names in a value (else the
   * value's start), or the end of the text for `empty` and `truncated`.
   */
  fail(problem: JsonProblem, place: ElementPlace | undefined, at: TextPoint): never;
}
