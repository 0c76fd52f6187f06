// The query parser of both ways a request is answered: Express's "simple" parser (node's querystring), without its decoding when there is nothing to decode.
import { parse } from 'node:querystring';

/** Pairs node's parser reads at most (its default maxKeys); a query near that many goes to it. */
const SHORTCUT_MAX_PAIRS = 900;

/**
 * The prototype of the queries split here: empty, frozen, and with no prototype of its own, so that
 * no name (`toString`, `constructor`, `__proto__`) reads as anything the query did not give, as on
 * node's null-prototype object. An object made from it stays in V8's fast mode (a null-prototype
 * object is a hash table from the start), and the few shapes the usual queries take are shared.
 */
const NO_MEMBERS: object = Object.freeze(Object.create(null) as object);

/**
 * `querystring.parse(text)`, the parser Express 5's default `query parser` setting ("simple") uses:
 * an object of name to value that inherits nothing, a name given twice to a list of its values in order, a
 * pair without `=` an empty value, nothing between two `&` skipped. A query with no `%` and no `+` (the usual
 * API call: `tid=1&key=...`, `limit=100`) has nothing to decode, so it is split here, without the
 * decoder's work per character; every other query, and one of very many pairs, is node's to read.
 * test/http/query-parsing.test.ts holds the two equal on every query of a generated corpus.
 */
export function parseQuery(text: unknown): Record<string, string | string[]> {
  if (typeof text !== 'string' || text.includes('%') || text.includes('+') || text.length > SHORTCUT_MAX_PAIRS) {
    return parse(text as string) as Record<string, string | string[]>;
  }
  const query = Object.create(NO_MEMBERS) as Record<string, string | string[]>;
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('&', start);
    if (end === -1) end = text.length;
    if (end > start) {
      const eq = text.indexOf('=', start);
      const name = eq !== -1 && eq < end ? text.slice(start, eq) : text.slice(start, end);
      const value = eq !== -1 && eq < end ? text.slice(eq + 1, end) : '';
      const before = query[name];
      if (before === undefined) query[name] = value;
      else if (typeof before === 'string') query[name] = [before, value];
      else before.push(value);
    }
    start = end + 1;
  }
  return query;
}

/** A parsed query, frozen: a later request with the same query string may be given the same object. */
export type ParsedQuery = Readonly<Record<string, string | readonly string[]>>;

/**
 * The app's `query parser` setting: parseQuery, giving its last answer again for the same text.
 * Express 5 parses the query string again on every read of `req.query`, and a request reads it once
 * per parameter it takes (the key, the lookup's parameters, `pretty`), each time with the same text.
 * The answer is frozen, lists included, since the next request with the same query string (a
 * poller's) is given the same object. One per app.
 */
export function createQueryParser(): (text: unknown) => ParsedQuery {
  let lastText: unknown;
  let last: ParsedQuery | undefined;
  return (text) => {
    if (last !== undefined && text === lastText) return last;
    const parsed = parseQuery(text);
    // node's answer (a query with something to decode) is a dictionary-mode object, which V8
    // freezes slowly: its entries go into an object like parseQuery's own, in the same order.
    const query = Object.getPrototypeOf(parsed) === NO_MEMBERS ? parsed : (Object.create(NO_MEMBERS) as typeof parsed);
    for (const name in parsed) {
      const value = parsed[name]!;
      if (typeof value !== 'string') Object.freeze(value);
      if (query !== parsed) query[name] = value;
    }
    lastText = text;
    last = Object.freeze(query);
    return last;
  };
}
