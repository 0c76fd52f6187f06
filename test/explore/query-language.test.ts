// The explore query language read into its tree (docs/explore.md, "Query language"): each operator,
// precedence, quoting, bare values, and every error with where and what.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_QUERY_LENGTH, MAX_TERMS, parseQuery, QuerySyntaxError, type QueryNode } from '../../src/explore/query-language.js';

/** The tree as a short text: terms as field op value, groups in brackets. */
function show(node: QueryNode): string {
  switch (node.kind) {
    case 'term':
      return node.field === null ? `<${node.value}>` : `${node.field}${node.op}<${node.value}>`;
    case 'not':
      return `not(${show(node.node)})`;
    default:
      return `${node.kind}(${node.nodes.map(show).join(', ')})`;
  }
}

describe('explore query language: what reads', () => {
  const cases: Array<[string, string]> = [
    ['risk=high', 'risk=<high>'],
    ['risk!=low', 'risk!=<low>'],
    ['risk>medium', 'risk><medium>'],
    ['risk>=medium', 'risk>=<medium>'],
    ['risk<high', 'risk<<high>'],
    ['risk<=high', 'risk<=<high>'],
    ['seen>7d', 'seen><7d>'],
    ['  type=domain  ', 'type=<domain>'],
    ['type=domain and ioc=*.example.com', 'and(type=<domain>, ioc=<*.example.com>)'],
    ['type=domain AND risk=high Or risk=critical', 'or(and(type=<domain>, risk=<high>), risk=<critical>)'],
    ['risk=critical or type=domain and risk=high', 'or(risk=<critical>, and(type=<domain>, risk=<high>))'],
    ['(risk=critical or risk=high) and type=url', 'and(or(risk=<critical>, risk=<high>), type=<url>)'],
    ['type=url risk=high', 'and(type=<url>, risk=<high>)'],
    ['not risk=retired', 'not(risk=<retired>)'],
    ['NOT not risk=retired', 'not(not(risk=<retired>))'],
    ['not (risk=low or risk=none)', 'not(or(risk=<low>, risk=<none>))'],
    ['threat="Cobalt Strike"', 'threat=<Cobalt Strike>'],
    ['threat="say \\"hi\\" \\\\ now"', 'threat=<say "hi" \\ now>'],
    ['zeus', '<zeus>'],
    ['"cobalt strike"', '<cobalt strike>'],
    ['*.example.com', '<*.example.com>'],
    ['http://x.example/?a=b', '<http://x.example/?a=b>'],
    ['ioc=http://x.example/?a=b&c=d', 'ioc=<http://x.example/?a=b&c=d>'],
    ['ioc=198.51.100.0/24', 'ioc=<198.51.100.0/24>'],
    ['attribute.port=443', 'attribute.port=<443>'],
    ['(risk=high)', 'risk=<high>'],
    ['((zeus))', '<zeus>'],
    ['added>="2026-01-02 03:04:05"', 'added>=<2026-01-02 03:04:05>'],
    ['"and"', '<and>'],
    ['type=and', 'type=<and>'],
  ];
  for (const [query, tree] of cases) {
    it(query, () => {
      assert.equal(show(parseQuery(query)), tree);
    });
  }

  it('keeps each term\'s 1-based position', () => {
    const tree = parseQuery('type=domain and risk=high');
    assert.equal(tree.kind, 'and');
    const [first, second] = (tree as { nodes: QueryNode[] }).nodes;
    assert.deepEqual([first!.kind === 'term' && first!.at, second!.kind === 'term' && second!.at], [1, 17]);
  });
});

describe('explore query language: every error says where and what', () => {
  const errors: Array<[string, RegExp]> = [
    ['', /^the query is empty$/],
    ['   ', /^the query is empty$/],
    ['risk=', /^at 6: expected a value after "risk="$/],
    ['type=url and risk= and x', /^at 19: expected a value after "risk="$/],
    ['risk=high and', /^at 14: expected a term after "and" \(at 11\)$/],
    ['risk=high or', /^at 13: expected a term after "or" \(at 11\)$/],
    ['risk=high and or x', /^at 15: expected a term after "and" \(at 11\)$/],
    ['not', /^at 4: expected a term after "not" \(at 1\)$/],
    ['(risk=high', /^at 11: expected "\)" to close the "\(" at 1$/],
    ['risk=high)', /^at 10: unexpected "\)"$/],
    ['()', /^at 2: empty parentheses$/],
    ['and risk=high', /^at 1: unexpected "and"$/],
    ['or', /^at 1: unexpected "or"$/],
    ['threat="open', /^at 8: a quote that is never closed$/],
    ['=high', /^at 1: expected a field name before "="$/],
    ['!=high', /^at 1: expected a field name before "!="$/],
    ['""', /^at 1: an empty value$/],
    // A field and its operator are written together: the blank makes `threat` a value and `=` stray.
    ['threat = "x"', /^at 8: expected a field name before "="$/],
  ];
  for (const [query, message] of errors) {
    it(JSON.stringify(query), () => {
      assert.throws(() => parseQuery(query), (error: unknown) => error instanceof QuerySyntaxError && message.test(error.message));
    });
  }

  it('refuses a query longer than the limit, and one with too many terms', () => {
    assert.throws(() => parseQuery('x'.repeat(MAX_QUERY_LENGTH + 1)), /longer than 2000 characters/);
    const many = Array.from({ length: MAX_TERMS + 1 }, (_, i) => `risk=r${i}`).join(' or ');
    assert.throws(() => parseQuery(many), new RegExp(`more than ${MAX_TERMS} terms`));
    assert.doesNotThrow(() => parseQuery(Array.from({ length: MAX_TERMS }, () => 'x').join(' ')));
  });
});
