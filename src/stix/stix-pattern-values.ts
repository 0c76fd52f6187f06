// The values of a STIX 2.1 indicator pattern, for the `stix` and `taxii` formats (docs/stix-mapping.md, "Reading STIX from a source"): a small, strict reader of one subset.
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
//
// Limits (stix-pattern-parser.ts): a pattern nested deeper than MAX_PATTERN_DEPTH groups, or with
// more than MAX_PATTERN_COMPARISONS comparisons, is skipped with that reason. Nothing here recurses
// on the length of a chain, and the parser recurses on nesting only up to that depth, so no pattern
// can overflow the stack and fail the whole pull.
import { PatternNotRead } from './stix-pattern-lexer.js';
import { parseStixPattern, type Comparison, type ComparisonExpression, type ObservationExpression } from './stix-pattern-parser.js';

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

// Both walks keep their own stack rather than recursing, operands pushed last first so they are
// visited in the pattern's order: the first part not read, in that order, is the reason given.

function collectObservations(root: ObservationExpression, out: StixPatternValue[]): void {
  const stack = [root];
  for (let expression = stack.pop(); expression !== undefined; expression = stack.pop()) {
    switch (expression.kind) {
      case 'observation':
        collectComparisons(expression.comparison, out);
        break;
      case 'OR':
        for (let i = expression.operands.length - 1; i >= 0; i--) stack.push(expression.operands[i]!);
        break;
      case 'qualified':
        throw new PatternNotRead(`qualifier ${expression.qualifiers[0]}`);
      default:
        throw new PatternNotRead(expression.kind === 'AND' ? 'AND between observation expressions' : 'FOLLOWEDBY');
    }
  }
}

function collectComparisons(root: ComparisonExpression, out: StixPatternValue[]): void {
  const stack = [root];
  for (let expression = stack.pop(); expression !== undefined; expression = stack.pop()) {
    if (expression.kind !== 'comparison') {
      if (expression.kind === 'AND') throw new PatternNotRead('AND');
      for (let i = expression.operands.length - 1; i >= 0; i--) stack.push(expression.operands[i]!);
      continue;
    }
    if (expression.negated) throw new PatternNotRead('NOT');
    if (expression.operator !== '=') throw new PatternNotRead(`operator ${expression.operator}`);
    const type = typeOfPath(expression);
    if (type === undefined) throw new PatternNotRead(`object path ${pathText(expression)}`);
    if (expression.literal.kind !== 'string') throw new PatternNotRead(`${pathText(expression)} compared with a non-string literal`);
    out.push({ type, value: expression.literal.value });
  }
}

/**
 * The (type, value) pairs of a pattern of the subset described at the top of this file, each pair
 * once, in the pattern's order; or why the pattern is not read (`AND`, `operator LIKE`,
 * `qualifier WITHIN`, `object path process:name`, `malformed: ... at offset N`, `pattern nested
 * deeper than 100 levels`, ...). Values are as written, escapes resolved: not trimmed, not normalized.
 */
export function readStixPatternValues(pattern: string): StixPatternReading {
  const found: StixPatternValue[] = [];
  try {
    collectObservations(parseStixPattern(pattern), found);
  } catch (error) {
    if (error instanceof PatternNotRead) return { ok: false, reason: error.message };
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
