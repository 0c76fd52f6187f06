// A parser of the whole STIX 2.1 patterning grammar into a tree, bounded in depth and size so that no upstream pattern can overflow the stack.
import { describe, malformed, PatternLexer, PatternNotRead, type Token } from './stix-pattern-lexer.js';

/**
 * The deepest nesting of groups read: parentheses and observation brackets, `([(a = 'x')])` being 3.
 * Real patterns nest a few levels; a hostile one nested thousands deep would overflow the stack and
 * fail the whole pull (docs/stix-mapping.md, "Reading STIX from a source"). The parser recurses only
 * into a group, about a dozen frames a level, so 100 levels is far deeper than any real pattern and
 * takes a small part of Node's default stack, wherever in a pull the reader is called.
 */
export const MAX_PATTERN_DEPTH = 100;

/**
 * The most comparisons read in one pattern. A chain of ORs is read in a loop, never by recursion,
 * so its length costs memory, not stack: an indicator listing thousands of values is read, while a
 * hostile one of millions is refused before its tree, several times the size of its text, fills the
 * heap.
 */
export const MAX_PATTERN_COMPARISONS = 100_000;

export interface PathStep {
  name?: string;
  /** An index step (`[0]`, `[*]`): no path read here has one. */
  index?: string;
  quoted?: boolean;
}

export interface Comparison {
  kind: 'comparison';
  objectType: string;
  steps: PathStep[];
  negated: boolean;
  operator: string;
  literal: Token;
}

// A chain of one operator is one node with all its operands: the tree is as deep as the groups are
// nested, never as long as a chain, so walking it needs no deep recursion either.
export type ComparisonExpression = Comparison | { kind: 'AND' | 'OR'; operands: ComparisonExpression[] };

export type ObservationExpression =
  | { kind: 'observation'; comparison: ComparisonExpression }
  | { kind: 'AND' | 'OR' | 'FOLLOWEDBY'; operands: ObservationExpression[] }
  /** Qualifiers in the order written (`WITHIN`, `START/STOP`, `REPEATS`): a chain of them is one node. */
  | { kind: 'qualified'; qualifiers: string[]; inner: ObservationExpression };

/** Operators given as keywords; `NOT` may come before any of them or before a symbol operator. */
const WORD_OPERATORS = new Set(['IN', 'LIKE', 'MATCHES', 'ISSUBSET', 'ISSUPERSET']);

/**
 * The tree of a pattern, so a malformed pattern is told from an unsupported one. Throws
 * PatternNotRead for a malformed pattern (`malformed: ... at offset N`), one nested deeper than
 * MAX_PATTERN_DEPTH, or one with more than MAX_PATTERN_COMPARISONS comparisons.
 */
export function parseStixPattern(pattern: string): ObservationExpression {
  return new Parser(new PatternLexer(pattern)).parsePattern();
}

/** Recursive descent, recursing only into groups (counted against MAX_PATTERN_DEPTH); chains are loops. */
class Parser {
  private token: Token;
  private depth = 0;
  private comparisons = 0;

  constructor(private readonly lexer: PatternLexer) {
    this.token = lexer.next();
  }

  parsePattern(): ObservationExpression {
    const expression = this.observations();
    if (this.token.kind !== 'end') this.fail(`unexpected ${describe(this.token)}`);
    return expression;
  }

  private take(): Token {
    const token = this.token;
    if (token.kind !== 'end') this.token = this.lexer.next();
    return token;
  }

  private isKeyword(word: string): boolean {
    return this.token.kind === 'keyword' && this.token.text === word;
  }

  private isPunct(text: string): boolean {
    return this.token.kind === 'punct' && this.token.text === text;
  }

  private expectPunct(text: string): void {
    if (!this.isPunct(text)) this.fail(`expected "${text}", found ${describe(this.token)}`);
    this.take();
  }

  private expectKeyword(word: string): void {
    if (!this.isKeyword(word)) this.fail(`expected ${word}, found ${describe(this.token)}`);
    this.take();
  }

  /** Fails at the current token: the one not expected. */
  private fail(reason: string): never {
    throw malformed(reason, this.token.at);
  }

  /** `inside` parsed within one more level of groups. */
  private group<T>(inside: () => T): T {
    if (++this.depth > MAX_PATTERN_DEPTH) throw new PatternNotRead(`pattern nested deeper than ${MAX_PATTERN_DEPTH} levels`);
    const result = inside();
    this.depth--;
    return result;
  }

  /** `operand (KEYWORD operand)*` as one node, or the operand alone. */
  private chain<K extends string, T>(keyword: K, operand: () => T): T | { kind: K; operands: T[] } {
    const first = operand();
    if (!this.isKeyword(keyword)) return first;
    const operands = [first];
    while (this.isKeyword(keyword)) {
      this.take();
      operands.push(operand());
    }
    return { kind: keyword, operands };
  }

  // Precedence, lowest first: FOLLOWEDBY, OR, AND between observation expressions.
  private observations(): ObservationExpression {
    return this.chain('FOLLOWEDBY', () => this.chain('OR', () => this.chain('AND', () => this.qualified())));
  }

  private qualified(): ObservationExpression {
    const inner = this.observation();
    const qualifiers: string[] = [];
    for (;;) {
      if (this.isKeyword('WITHIN')) {
        this.take();
        this.literalOfKind(/^[+-]?(\d+(\.\d+)?|\.\d+)$/, 'a number of seconds');
        this.expectKeyword('SECONDS');
        qualifiers.push('WITHIN');
      } else if (this.isKeyword('START')) {
        this.take();
        this.startStopTime();
        this.expectKeyword('STOP');
        this.startStopTime();
        qualifiers.push('START/STOP');
      } else if (this.isKeyword('REPEATS')) {
        this.take();
        this.literalOfKind(/^\+?\d+$/, 'a count');
        this.expectKeyword('TIMES');
        qualifiers.push('REPEATS');
      } else {
        return qualifiers.length === 0 ? inner : { kind: 'qualified', qualifiers, inner };
      }
    }
  }

  /** START and STOP take a `t'...'` timestamp (STIX 2.1) or, as STIX 2.0 wrote them, a string. */
  private startStopTime(): void {
    const token = this.token;
    if (!(token.kind === 'string' || (token.kind === 'literal' && token.text.startsWith("t'")))) this.fail(`expected a timestamp, found ${describe(token)}`);
    this.take();
  }

  private literalOfKind(form: RegExp, what: string): void {
    const token = this.token;
    if (!(token.kind === 'literal' && form.test(token.text))) this.fail(`expected ${what}, found ${describe(token)}`);
    this.take();
  }

  private observation(): ObservationExpression {
    if (this.isPunct('[')) {
      this.take();
      return this.group(() => {
        const comparison = this.comparisonOr();
        this.expectPunct(']');
        return { kind: 'observation', comparison };
      });
    }
    if (this.isPunct('(')) {
      this.take();
      return this.group(() => {
        const inner = this.observations();
        this.expectPunct(')');
        return inner;
      });
    }
    return this.fail(`expected "[" or "(", found ${describe(this.token)}`);
  }

  // Inside an observation expression: OR binds looser than AND.
  private comparisonOr(): ComparisonExpression {
    return this.chain('OR', () => this.chain('AND', () => this.comparison()));
  }

  private comparison(): ComparisonExpression {
    if (this.isPunct('(')) {
      this.take();
      return this.group(() => {
        const inner = this.comparisonOr();
        this.expectPunct(')');
        return inner;
      });
    }
    if (++this.comparisons > MAX_PATTERN_COMPARISONS) throw new PatternNotRead(`pattern has more than ${MAX_PATTERN_COMPARISONS} comparisons`);
    let negated = false;
    if (this.isKeyword('NOT')) {
      // STIX 2.1 also allows NOT before EXISTS.
      negated = true;
      this.take();
    }
    if (this.isKeyword('EXISTS')) {
      this.take();
      const { objectType, steps } = this.objectPath();
      return { kind: 'comparison', objectType, steps, negated, operator: 'EXISTS', literal: { kind: 'end', at: 0 } };
    }
    if (negated) this.fail('expected EXISTS after a leading NOT');
    const { objectType, steps } = this.objectPath();
    if (this.isKeyword('NOT')) {
      negated = true;
      this.take();
    }
    const token = this.token;
    if (token.kind === 'operator') {
      this.take();
      return { kind: 'comparison', objectType, steps, negated, operator: token.text, literal: this.primitive() };
    }
    if (token.kind === 'keyword' && WORD_OPERATORS.has(token.text)) {
      this.take();
      const literal = token.text === 'IN' ? this.set() : this.primitive();
      return { kind: 'comparison', objectType, steps, negated, operator: token.text, literal };
    }
    return this.fail(`expected a comparison operator, found ${describe(token)}`);
  }

  private primitive(): Token {
    const token = this.token;
    if (token.kind !== 'string' && token.kind !== 'literal') this.fail(`expected a literal, found ${describe(token)}`);
    return this.take();
  }

  /** `(literal, ...)` after IN: checked for form only, since IN is never read; a loop, however long. */
  private set(): Token {
    const open = this.token;
    this.expectPunct('(');
    if (!this.isPunct(')')) {
      this.primitive();
      while (this.isPunct(',')) {
        this.take();
        this.primitive();
      }
    }
    this.expectPunct(')');
    return { kind: 'literal', text: '(...)', at: open.at };
  }

  private objectPath(): { objectType: string; steps: PathStep[] } {
    const type = this.token;
    if (type.kind !== 'identifier') return this.fail(`expected an object path, found ${describe(type)}`);
    this.take();
    this.expectPunct(':');
    const steps: PathStep[] = [this.key()];
    for (;;) {
      if (this.isPunct('.')) {
        this.take();
        steps.push(this.key());
      } else if (this.isPunct('[')) {
        this.take();
        const index = this.token;
        const star = index.kind === 'punct' && index.text === '*';
        if (!star && !(index.kind === 'literal' && /^[+-]?\d+$/.test(index.text))) this.fail(`expected an index or "*", found ${describe(index)}`);
        this.take();
        this.expectPunct(']');
        steps.push({ index: star ? '*' : (index as { text: string }).text });
      } else {
        return { objectType: type.text, steps };
      }
    }
  }

  /** A property name: an identifier without a hyphen, or a quoted string. */
  private key(): PathStep {
    const token = this.token;
    if (token.kind === 'string' || (token.kind === 'identifier' && !token.text.includes('-'))) {
      this.take();
      return token.kind === 'string' ? { name: token.value, quoted: true } : { name: token.text };
    }
    return this.fail(token.kind === 'identifier' ? `property name "${token.text}" has a hyphen and must be quoted` : `expected a property name, found ${describe(token)}`);
  }
}
