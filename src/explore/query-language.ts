// The explore query language (docs/explore.md, "Query language"), read into a tree: terms
// `FIELD OP VALUE` or a bare value, joined by `and`, `or`, `not` and parentheses, `and` binding
// tighter than `or`, two terms side by side meaning `and`. What a field or value means is the
// next step's (explore-filters.ts); this reads the shape alone and says where it is wrong.

export type Comparison = '=' | '!=' | '>' | '>=' | '<' | '<=';

/** One term. `field` is null for a bare value (`zeus`, `"cobalt strike"`), a value search. */
export interface QueryTerm {
  kind: 'term';
  field: string | null;
  op: Comparison;
  value: string;
  /** 1-based position of the term in the query, for errors about its field or value. */
  at: number;
}

export type QueryNode = QueryTerm | { kind: 'not'; node: QueryNode } | { kind: 'and' | 'or'; nodes: QueryNode[] };

/** A query that cannot be read; `message` is whole (`at 12: expected a value after "risk="`). */
export class QuerySyntaxError extends Error {}

/** The longest query read, and the most terms in one: past them a query is refused, not run. */
export const MAX_QUERY_LENGTH = 2000;
export const MAX_TERMS = 64;

type Token =
  | { kind: 'field'; text: string; op: Comparison; at: number; opEnd: number }
  | { kind: 'value'; text: string; quoted: boolean; at: number }
  | { kind: 'and' | 'or' | 'not' | '(' | ')'; at: number };

/** A field name followed by its operator: a letter, then letters, digits, `_`, `.` and `-`. */
const FIELD_AND_OP = /[A-Za-z_][A-Za-z0-9_.-]*(!=|>=|<=|=|>|<)/y;
const KEYWORDS: ReadonlySet<string> = new Set(['and', 'or', 'not']);

function fail(at: number, message: string): never {
  throw new QuerySyntaxError(`at ${at}: ${message}`);
}

/** A double-quoted value from `start` (the quote): `\"` and `\\` stand for themselves. */
function readQuoted(text: string, start: number): { value: string; end: number } {
  let value = '';
  for (let i = start + 1; i < text.length; i += 1) {
    const c = text[i]!;
    if (c === '"') return { value, end: i + 1 };
    if (c === '\\' && (text[i + 1] === '"' || text[i + 1] === '\\')) {
      value += text[i + 1];
      i += 1;
    } else value += c;
  }
  return fail(start + 1, 'a quote that is never closed');
}

/** An unquoted value: everything up to a blank, a parenthesis that closes, or a quote. */
function readBare(text: string, start: number): { value: string; end: number } {
  let end = start;
  while (end < text.length && !/[\s)"]/.test(text[end]!)) end += 1;
  return { value: text.slice(start, end), end };
}

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (/\s/.test(c)) {
      i += 1;
      continue;
    }
    const at = i + 1;
    if (c === '(' || c === ')') {
      tokens.push({ kind: c, at });
      i += 1;
      continue;
    }
    if (c === '"') {
      const { value, end } = readQuoted(text, i);
      tokens.push({ kind: 'value', text: value, quoted: true, at });
      i = end;
      continue;
    }
    FIELD_AND_OP.lastIndex = i;
    const field = FIELD_AND_OP.exec(text);
    if (field !== null) {
      const op = field[1] as Comparison;
      tokens.push({ kind: 'field', text: field[0].slice(0, -op.length), op, at, opEnd: FIELD_AND_OP.lastIndex });
      i = FIELD_AND_OP.lastIndex;
      // The value follows the operator at once: quoted, bare, or missing.
      if (text[i] === '"') {
        const { value, end } = readQuoted(text, i);
        tokens.push({ kind: 'value', text: value, quoted: true, at: i + 1 });
        i = end;
      } else {
        const { value, end } = readBare(text, i);
        if (value !== '') tokens.push({ kind: 'value', text: value, quoted: false, at: i + 1 });
        i = end;
      }
      continue;
    }
    if ('=!<>'.includes(c)) fail(at, `expected a field name before "${/^(!=|>=|<=|=|>|<)/.exec(text.slice(i))?.[0] ?? c}"`);
    const { value, end } = readBare(text, i);
    if (value === '') fail(at, `unexpected "${c}"`);
    const keyword = value.toLowerCase();
    tokens.push(KEYWORDS.has(keyword) ? { kind: keyword as 'and' | 'or' | 'not', at } : { kind: 'value', text: value, quoted: false, at });
    i = end;
  }
  return tokens;
}

/** Reads `text` as a query, or throws QuerySyntaxError saying where and what. */
export function parseQuery(text: string): QueryNode {
  if (text.length > MAX_QUERY_LENGTH) throw new QuerySyntaxError(`longer than ${MAX_QUERY_LENGTH} characters`);
  const tokens = tokenize(text);
  if (tokens.length === 0) throw new QuerySyntaxError('the query is empty');
  let next = 0;
  let terms = 0;
  const end = text.length + 1;
  const peek = (): Token | undefined => tokens[next];
  const describe = (token: Token): string => (token.kind === 'value' ? (token.quoted ? `"${token.text}"` : token.text) : token.kind === 'field' ? `${token.text}${token.op}` : token.kind);

  function orExpr(): QueryNode {
    const nodes = [andExpr()];
    while (peek()?.kind === 'or') {
      const or = tokens[next++]!;
      if (peek() === undefined || peek()!.kind === ')' || peek()!.kind === 'or' || peek()!.kind === 'and') fail(peek()?.at ?? end, `expected a term after "or" (at ${or.at})`);
      nodes.push(andExpr());
    }
    return nodes.length === 1 ? nodes[0]! : { kind: 'or', nodes };
  }

  function andExpr(): QueryNode {
    const nodes = [unary()];
    for (;;) {
      const token = peek();
      if (token === undefined || token.kind === 'or' || token.kind === ')') break;
      if (token.kind === 'and') {
        next += 1;
        const after = peek();
        if (after === undefined || after.kind === ')' || after.kind === 'or' || after.kind === 'and') fail(after?.at ?? end, `expected a term after "and" (at ${token.at})`);
      }
      nodes.push(unary());
    }
    return nodes.length === 1 ? nodes[0]! : { kind: 'and', nodes };
  }

  function unary(): QueryNode {
    const token = peek();
    if (token?.kind === 'not') {
      next += 1;
      const after = peek();
      if (after === undefined || after.kind === ')' || after.kind === 'or' || after.kind === 'and') fail(after?.at ?? end, `expected a term after "not" (at ${token.at})`);
      return { kind: 'not', node: unary() };
    }
    return primary();
  }

  function primary(): QueryNode {
    const token = tokens[next++];
    if (token === undefined) return fail(end, 'expected a term');
    switch (token.kind) {
      case '(': {
        if (peek()?.kind === ')') fail(peek()!.at, 'empty parentheses');
        const inner = orExpr();
        const close = tokens[next++];
        if (close?.kind !== ')') fail(close?.at ?? end, `expected ")" to close the "(" at ${token.at}`);
        return inner;
      }
      case 'field': {
        const value = peek();
        if (value?.kind !== 'value') fail(token.opEnd + 1, `expected a value after "${token.text}${token.op}"`);
        next += 1;
        return term({ kind: 'term', field: token.text, op: token.op, value: value.text, at: token.at });
      }
      case 'value':
        return term({ kind: 'term', field: null, op: '=', value: token.text, at: token.at });
      default:
        return fail(token.at, `unexpected "${describe(token)}"`);
    }
  }

  function term(node: QueryTerm): QueryTerm {
    terms += 1;
    if (terms > MAX_TERMS) fail(node.at, `more than ${MAX_TERMS} terms`);
    if (node.field === null && node.value.trim() === '') fail(node.at, 'an empty value');
    return node;
  }

  const tree = orExpr();
  const rest = peek();
  if (rest !== undefined) fail(rest.at, `unexpected "${describe(rest)}"`);
  return tree;
}
