// The values of a STIX 2.1 indicator pattern, for the `stix` and `taxii` formats (DESIGN 7): a small, strict reader of one subset.
//
// What is read. A pattern is read when every comparison in it is `OBJECT-PATH = 'string'` on one of
// the paths below, and the comparisons are joined only by OR. The STIX patterning grammar has an OR
// at two levels, and both are read:
//   - between comparisons inside one observation expression: `[a = 'x' OR b = 'y']` (one observation
//     in which a is x or b is y);
//   - between observation expressions: `[a = 'x'] OR [b = 'y']` (an observation where a is x, or one
//     where b is y).
// Either way each comparison alone is enough for the pattern to match, so each value alone is an
// indicator. Parentheses at both levels are allowed (`([a = 'x'] OR [b = 'y'])`, `[(a = 'x' OR b = 'y')]`),
// and so is any mix and nesting of the two ORs.
//
// What is skipped, with a reason: AND at either level (a value is then only part of what must be
// seen), FOLLOWEDBY, any qualifier (WITHIN, START/STOP, REPEATS), NOT, any operator but `=` (`!=`,
// `<>`, `<`, `>`, `<=`, `>=`, IN, LIKE, MATCHES, ISSUBSET, ISSUPERSET, EXISTS), a literal that is not a
// string, any other object path (an index step included), and a malformed pattern. One such part
// skips the whole pattern, even inside an OR: a pattern is read whole or not at all.
//
// Lexical rules follow the STIX 2.1 patterning grammar: keywords in any letter case, `==` the same as
// `=`, whitespace anywhere between tokens. In a string literal `\'` is a quote and `\\` a backslash;
// a backslash before anything else makes the pattern malformed. A property name with a hyphen must
// be quoted (`file:hashes.'SHA-256'`); an unquoted one (`file:hashes.MD5`) is the same key. Comments
// are not accepted.

/** The indicator types this reader gives (src/indicator-types.ts names); the pull normalizes further (a CIDR, an IDN). */
export type StixValueType = 'ip' | 'ipv6' | 'domain' | 'url' | 'email' | 'md5' | 'sha1' | 'sha256';

export interface StixPatternValue {
  type: StixValueType;
  value: string;
}

export type StixPatternReading = { ok: true; values: StixPatternValue[] } | { ok: false; reason: string };

/** `TYPE:PROPERTY` paths read, by their plain form (property names unquoted). */
const VALUE_PATHS: ReadonlyMap<string, StixValueType> = new Map([
  ['ipv4-addr:value', 'ip'],
  ['ipv6-addr:value', 'ipv6'],
  ['domain-name:value', 'domain'],
  ['url:value', 'url'],
  ['email-addr:value', 'email'],
]);

/**
 * `file:hashes.KEY`, by the key in upper case. STIX 2.1 (Hashes type) says a key SHOULD be a name of
 * hash-algorithm-ov (`MD5`, `SHA-1`, `SHA-256`) and MUST identify the algorithm, so `SHA1` and
 * `SHA256`, which many producers write, identify the same algorithms and are read too, in any case.
 */
const HASH_KEYS: ReadonlyMap<string, StixValueType> = new Map([
  ['MD5', 'md5'],
  ['SHA-1', 'sha1'],
  ['SHA1', 'sha1'],
  ['SHA-256', 'sha256'],
  ['SHA256', 'sha256'],
]);

const KEYWORDS = new Set([
  'AND', 'OR', 'NOT', 'FOLLOWEDBY', 'LIKE', 'MATCHES', 'ISSUPERSET', 'ISSUBSET', 'EXISTS', 'LAST', 'IN',
  'START', 'STOP', 'SECONDS', 'WITHIN', 'REPEATS', 'TIMES',
]);
/** Operators given as keywords; `NOT` may come before any of them or before a symbol operator. */
const WORD_OPERATORS = new Set(['IN', 'LIKE', 'MATCHES', 'ISSUBSET', 'ISSUPERSET']);

type Token =
  | { kind: 'punct'; text: string; at: number }
  | { kind: 'operator'; text: string; at: number }
  | { kind: 'keyword'; text: string; at: number }
  | { kind: 'identifier'; text: string; at: number }
  | { kind: 'string'; value: string; at: number }
  /** Numbers, booleans and the `t'...'`, `b'...'`, `h'...'` literals: never a value here, so only their kind is kept. */
  | { kind: 'literal'; text: string; at: number }
  | { kind: 'end'; at: number };

class Malformed extends Error {
  constructor(reason: string, at: number) {
    super(`malformed: ${reason} at offset ${at}`);
  }
}

/** Which part of a pattern is not read; thrown while walking the parsed pattern, caught by readStixPatternValues. */
class Unsupported extends Error {}

// The STIX grammar's whitespace: ASCII space, tab, CR, LF, VT, FF and the Unicode spaces.
const WHITESPACE = /[ \t\r\n\u000b\u000c\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/;
const IDENTIFIER_START = /[A-Za-z_]/;
const IDENTIFIER_PART = /[A-Za-z0-9_-]/;
const NUMBER = /^[+-]?(?:\d+(?:\.\d+)?|\.\d+)/;

function tokenize(pattern: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < pattern.length) {
    const ch = pattern[i]!;
    const at = i;
    if (WHITESPACE.test(ch)) {
      i++;
      continue;
    }
    // A dot before a digit starts a number (`.5`): a property name never starts with a digit.
    if ('[]():.,*'.includes(ch) && !(ch === '.' && /[0-9]/.test(pattern[i + 1] ?? ''))) {
      tokens.push({ kind: 'punct', text: ch, at });
      i++;
      continue;
    }
    const two = pattern.slice(i, i + 2);
    if (two === '==' || two === '!=' || two === '<>' || two === '<=' || two === '>=') {
      tokens.push({ kind: 'operator', text: two === '==' ? '=' : two === '<>' ? '!=' : two, at });
      i += 2;
      continue;
    }
    if (ch === '=' || ch === '<' || ch === '>') {
      tokens.push({ kind: 'operator', text: ch, at });
      i++;
      continue;
    }
    if (ch === "'") {
      const { value, end } = readString(pattern, i);
      tokens.push({ kind: 'string', value, at });
      i = end;
      continue;
    }
    if (IDENTIFIER_START.test(ch)) {
      let end = i + 1;
      while (end < pattern.length && IDENTIFIER_PART.test(pattern[end]!)) end++;
      const word = pattern.slice(i, end);
      // t'...' (timestamp), b'...' (base64) and h'...' (hex): their text holds no quote or backslash.
      if ((word === 't' || word === 'b' || word === 'h') && pattern[end] === "'") {
        const close = pattern.indexOf("'", end + 1);
        if (close < 0) throw new Malformed(`unterminated ${word}'...' literal`, at);
        tokens.push({ kind: 'literal', text: pattern.slice(i, close + 1), at });
        i = close + 1;
        continue;
      }
      const upper = word.toUpperCase();
      if (upper === 'TRUE' || upper === 'FALSE') tokens.push({ kind: 'literal', text: word, at });
      else if (KEYWORDS.has(upper)) tokens.push({ kind: 'keyword', text: upper, at });
      else tokens.push({ kind: 'identifier', text: word, at });
      i = end;
      continue;
    }
    const number = NUMBER.exec(pattern.slice(i, i + 64))?.[0];
    if (number !== undefined) {
      tokens.push({ kind: 'literal', text: number, at });
      i += number.length;
      continue;
    }
    throw new Malformed(`unexpected ${JSON.stringify(ch)}`, at);
  }
  tokens.push({ kind: 'end', at: pattern.length });
  return tokens;
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
        throw new Malformed(escaped === undefined ? 'unterminated string' : `invalid escape "\\${escaped}" in a string`, i);
      }
      value += pattern.slice(from, i) + escaped;
      i++;
      from = i + 1;
    }
  }
  throw new Malformed('unterminated string', start);
}

interface PathStep {
  name?: string;
  /** An index step (`[0]`, `[*]`): no path read here has one. */
  index?: string;
  quoted?: boolean;
}

interface Comparison {
  kind: 'comparison';
  objectType: string;
  steps: PathStep[];
  negated: boolean;
  operator: string;
  literal: Token;
}

type ComparisonExpression = Comparison | { kind: 'AND' | 'OR'; left: ComparisonExpression; right: ComparisonExpression };

type ObservationExpression =
  | { kind: 'observation'; comparison: ComparisonExpression }
  | { kind: 'AND' | 'OR' | 'FOLLOWEDBY'; left: ObservationExpression; right: ObservationExpression }
  | { kind: 'qualifier'; qualifier: string; inner: ObservationExpression };

/** A recursive-descent parser of the whole STIX patterning grammar, so a malformed pattern is told from an unsupported one. */
class Parser {
  private i = 0;
  constructor(private readonly tokens: Token[]) {}

  parsePattern(): ObservationExpression {
    const expression = this.observations();
    const rest = this.peek();
    if (rest.kind !== 'end') this.fail(`unexpected ${describe(rest)}`);
    return expression;
  }

  private peek(): Token {
    return this.tokens[this.i]!;
  }

  private take(): Token {
    const token = this.tokens[this.i]!;
    if (token.kind !== 'end') this.i++;
    return token;
  }

  private isKeyword(word: string): boolean {
    const token = this.peek();
    return token.kind === 'keyword' && token.text === word;
  }

  private isPunct(text: string): boolean {
    const token = this.peek();
    return token.kind === 'punct' && token.text === text;
  }

  private expectPunct(text: string): void {
    if (!this.isPunct(text)) this.fail(`expected "${text}", found ${describe(this.peek())}`);
    this.i++;
  }

  private expectKeyword(word: string): void {
    if (!this.isKeyword(word)) this.fail(`expected ${word}, found ${describe(this.peek())}`);
    this.i++;
  }

  private fail(reason: string): never {
    throw new Malformed(reason, this.peek().at);
  }

  // Precedence, lowest first: FOLLOWEDBY, OR, AND between observation expressions; all left-associative.
  private observations(): ObservationExpression {
    let left = this.observationOr();
    while (this.isKeyword('FOLLOWEDBY')) {
      this.i++;
      left = { kind: 'FOLLOWEDBY', left, right: this.observationOr() };
    }
    return left;
  }

  private observationOr(): ObservationExpression {
    let left = this.observationAnd();
    while (this.isKeyword('OR')) {
      this.i++;
      left = { kind: 'OR', left, right: this.observationAnd() };
    }
    return left;
  }

  private observationAnd(): ObservationExpression {
    let left = this.qualified();
    while (this.isKeyword('AND')) {
      this.i++;
      left = { kind: 'AND', left, right: this.qualified() };
    }
    return left;
  }

  private qualified(): ObservationExpression {
    let expression = this.observation();
    for (;;) {
      if (this.isKeyword('WITHIN')) {
        this.i++;
        this.literalOfKind(/^[+-]?(\d+(\.\d+)?|\.\d+)$/, 'a number of seconds');
        this.expectKeyword('SECONDS');
        expression = { kind: 'qualifier', qualifier: 'WITHIN', inner: expression };
      } else if (this.isKeyword('START')) {
        this.i++;
        this.startStopTime();
        this.expectKeyword('STOP');
        this.startStopTime();
        expression = { kind: 'qualifier', qualifier: 'START/STOP', inner: expression };
      } else if (this.isKeyword('REPEATS')) {
        this.i++;
        this.literalOfKind(/^\+?\d+$/, 'a count');
        this.expectKeyword('TIMES');
        expression = { kind: 'qualifier', qualifier: 'REPEATS', inner: expression };
      } else {
        return expression;
      }
    }
  }

  /** START and STOP take a `t'...'` timestamp (STIX 2.1) or, as STIX 2.0 wrote them, a string. */
  private startStopTime(): void {
    const token = this.take();
    if (token.kind === 'string' || (token.kind === 'literal' && token.text.startsWith("t'"))) return;
    this.i--;
    this.fail(`expected a timestamp, found ${describe(token)}`);
  }

  private literalOfKind(form: RegExp, what: string): void {
    const token = this.take();
    if (token.kind === 'literal' && form.test(token.text)) return;
    this.i--;
    this.fail(`expected ${what}, found ${describe(token)}`);
  }

  private observation(): ObservationExpression {
    if (this.isPunct('[')) {
      this.i++;
      const comparison = this.comparisonOr();
      this.expectPunct(']');
      return { kind: 'observation', comparison };
    }
    if (this.isPunct('(')) {
      this.i++;
      const inner = this.observations();
      this.expectPunct(')');
      return inner;
    }
    return this.fail(`expected "[" or "(", found ${describe(this.peek())}`);
  }

  // Inside an observation expression: OR binds looser than AND.
  private comparisonOr(): ComparisonExpression {
    let left = this.comparisonAnd();
    while (this.isKeyword('OR')) {
      this.i++;
      left = { kind: 'OR', left, right: this.comparisonAnd() };
    }
    return left;
  }

  private comparisonAnd(): ComparisonExpression {
    let left = this.comparison();
    while (this.isKeyword('AND')) {
      this.i++;
      left = { kind: 'AND', left, right: this.comparison() };
    }
    return left;
  }

  private comparison(): ComparisonExpression {
    if (this.isPunct('(')) {
      this.i++;
      const inner = this.comparisonOr();
      this.expectPunct(')');
      return inner;
    }
    let negated = false;
    if (this.isKeyword('NOT')) {
      // STIX 2.1 also allows NOT before EXISTS.
      negated = true;
      this.i++;
    }
    if (this.isKeyword('EXISTS')) {
      this.i++;
      const { objectType, steps } = this.objectPath();
      return { kind: 'comparison', objectType, steps, negated, operator: 'EXISTS', literal: { kind: 'end', at: 0 } };
    }
    if (negated) this.fail('expected EXISTS after a leading NOT');
    const { objectType, steps } = this.objectPath();
    if (this.isKeyword('NOT')) {
      negated = true;
      this.i++;
    }
    const token = this.take();
    if (token.kind === 'operator') return { kind: 'comparison', objectType, steps, negated, operator: token.text, literal: this.primitive() };
    if (token.kind === 'keyword' && WORD_OPERATORS.has(token.text)) {
      const literal = token.text === 'IN' ? this.set() : this.primitive();
      return { kind: 'comparison', objectType, steps, negated, operator: token.text, literal };
    }
    this.i--;
    return this.fail(`expected a comparison operator, found ${describe(token)}`);
  }

  private primitive(): Token {
    const token = this.take();
    if (token.kind === 'string' || token.kind === 'literal') return token;
    this.i--;
    return this.fail(`expected a literal, found ${describe(token)}`);
  }

  /** `(literal, ...)` after IN: checked for form only, since IN is never read. */
  private set(): Token {
    const open = this.peek();
    this.expectPunct('(');
    if (!this.isPunct(')')) {
      this.primitive();
      while (this.isPunct(',')) {
        this.i++;
        this.primitive();
      }
    }
    this.expectPunct(')');
    return { kind: 'literal', text: '(...)', at: open.at };
  }

  private objectPath(): { objectType: string; steps: PathStep[] } {
    const type = this.take();
    if (type.kind !== 'identifier') {
      this.i--;
      this.fail(`expected an object path, found ${describe(type)}`);
    }
    this.expectPunct(':');
    const steps: PathStep[] = [this.key()];
    for (;;) {
      if (this.isPunct('.')) {
        this.i++;
        steps.push(this.key());
      } else if (this.isPunct('[')) {
        this.i++;
        const index = this.take();
        if (!(index.kind === 'punct' && index.text === '*') && !(index.kind === 'literal' && /^[+-]?\d+$/.test(index.text))) {
          this.i--;
          this.fail(`expected an index or "*", found ${describe(index)}`);
        }
        this.expectPunct(']');
        steps.push({ index: index.kind === 'punct' ? '*' : (index as { text: string }).text });
      } else {
        return { objectType: type.text, steps };
      }
    }
  }

  /** A property name: an identifier without a hyphen, or a quoted string. */
  private key(): PathStep {
    const token = this.take();
    if (token.kind === 'string') return { name: token.value, quoted: true };
    if (token.kind === 'identifier' && !token.text.includes('-')) return { name: token.text };
    this.i--;
    return this.fail(
      token.kind === 'identifier' ? `property name "${token.text}" has a hyphen and must be quoted` : `expected a property name, found ${describe(token)}`,
    );
  }
}

function describe(token: Token): string {
  switch (token.kind) {
    case 'end':
      return 'the end';
    case 'string':
      return 'a string';
    case 'keyword':
      return token.text;
    default:
      return JSON.stringify(token.text);
  }
}

function pathText(comparison: Comparison): string {
  const steps = comparison.steps.map((step, i) => {
    if (step.index !== undefined) return `[${step.index}]`;
    const name = step.quoted ? `'${step.name!.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'` : step.name!;
    return i === 0 ? name : `.${name}`;
  });
  return `${comparison.objectType}:${steps.join('')}`;
}

function typeOfPath(comparison: Comparison): StixValueType | undefined {
  const { objectType, steps } = comparison;
  if (steps.some((step) => step.index !== undefined)) return undefined;
  const names = steps.map((step) => step.name!);
  if (names.length === 1) return VALUE_PATHS.get(`${objectType}:${names[0]}`);
  if (objectType === 'file' && names.length === 2 && names[0] === 'hashes') return HASH_KEYS.get(names[1]!.toUpperCase());
  return undefined;
}

function collectObservations(expression: ObservationExpression, out: StixPatternValue[]): void {
  switch (expression.kind) {
    case 'observation':
      return collectComparisons(expression.comparison, out);
    case 'OR':
      collectObservations(expression.left, out);
      return collectObservations(expression.right, out);
    case 'qualifier':
      throw new Unsupported(`qualifier ${expression.qualifier}`);
    default:
      throw new Unsupported(expression.kind === 'AND' ? 'AND between observation expressions' : 'FOLLOWEDBY');
  }
}

function collectComparisons(expression: ComparisonExpression, out: StixPatternValue[]): void {
  if (expression.kind !== 'comparison') {
    if (expression.kind === 'AND') throw new Unsupported('AND');
    collectComparisons(expression.left, out);
    return collectComparisons(expression.right, out);
  }
  if (expression.negated) throw new Unsupported('NOT');
  if (expression.operator !== '=') throw new Unsupported(`operator ${expression.operator}`);
  const type = typeOfPath(expression);
  if (type === undefined) throw new Unsupported(`object path ${pathText(expression)}`);
  if (expression.literal.kind !== 'string') throw new Unsupported(`${pathText(expression)} compared with a non-string literal`);
  out.push({ type, value: expression.literal.value });
}

/**
 * The (type, value) pairs of a pattern of the subset described at the top of this file, each pair
 * once, in the pattern's order; or why the pattern is not read (`AND`, `operator LIKE`,
 * `qualifier WITHIN`, `object path process:name`, `malformed: ... at offset N`, ...). Values are as
 * written, escapes resolved: not trimmed, not normalized.
 */
export function readStixPatternValues(pattern: string): StixPatternReading {
  let parsed: ObservationExpression;
  try {
    parsed = new Parser(tokenize(pattern)).parsePattern();
  } catch (error) {
    if (error instanceof Malformed) return { ok: false, reason: error.message };
    throw error;
  }
  const found: StixPatternValue[] = [];
  try {
    collectObservations(parsed, found);
  } catch (error) {
    if (error instanceof Unsupported) return { ok: false, reason: error.message };
    throw error;
  }
  const seen = new Set<string>();
  const values = found.filter(({ type, value }) => {
    const key = `${type}\u0000${value}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return { ok: true, values };
}
