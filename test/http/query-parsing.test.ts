// The query string is read by the app's `query parser` setting, each request's own, and parseQuery reads it as Express's default parser does.
import assert from 'node:assert/strict';
import { parse } from 'node:querystring';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { createQueryParser, parseQuery } from '../../src/http/query-parser.js';
import { createTestContext, GENEROUS_PLANS, type TestContext } from '../helpers/test-app.js';

describe('query parsing', () => {
  let ctx: TestContext;
  let parses = 0;
  before(async () => {
    ctx = await createTestContext({ overrides: GENEROUS_PLANS });
    // Express's default ("simple") parser, counted.
    ctx.app.set('query parser', (text: string) => {
      parses++;
      return parse(text);
    });
  });
  after(() => ctx.close());

  it('reads the query with the query parser setting, and each request gets its own parameters', async () => {
    parses = 0;
    const first = await request(ctx.app).get(`/api/feed.php?fid=1&get=links&page=0&pretty=1&key=${ctx.keys.business}`).expect(200);
    assert.ok(parses > 0);
    assert.equal(first.body.page_current, 0);
    assert.match(first.text, /\n {2}"/);
    const second = await request(ctx.app).get('/api/threat.php?tid=2').expect(200);
    assert.equal(second.body.tid, 2);
    assert.doesNotMatch(second.text, /\n/);
  });
});

describe('parseQuery', () => {
  /** The same entries, in the same order, of node's parser's answer (Express's "simple" one). */
  const same = (text: string) => assert.deepEqual(Object.entries(parseQuery(text)), Object.entries(parse(text)), JSON.stringify(text));

  it('reads the usual queries as node does, into an object that inherits nothing', () => {
    for (const text of ['', 'tid=1&key=abc', 'limit=100', 'a=1&a=2&a=3', 'a&b=&=c', '=', '==', 'a=b=c', '&&a&&', '__proto__=1&constructor=2&toString=3']) same(text);
    const query = parseQuery('a=1&a=2&b');
    assert.deepEqual({ ...query }, { a: ['1', '2'], b: '' });
    for (const name of ['toString', 'constructor', '__proto__', 'hasOwnProperty', 'valueOf']) assert.equal(query[name], undefined, name);
    const own = parseQuery('__proto__=x&constructor=y');
    assert.deepEqual(Object.entries(own), [['__proto__', 'x'], ['constructor', 'y']]);
    assert.equal(own.__proto__, 'x');
  });

  it('leaves what needs decoding, and very long queries, to node: the same answer', () => {
    for (const text of ['k%65y=1', 'a=b+c', 'accept=application/taxii+json;version=2.1', 'x=%zz', `${'a=1&'.repeat(1200)}b=2`]) same(text);
  });

  it('gives node\'s answer on every query of a generated corpus', () => {
    // A fixed sequence of pieces (a linear congruential generator, so that a failure can be replayed).
    const pieces = ['a', 'b', '=', '&', 'key', '__proto__', 'x=1', '&&', '==', '%41', '+', '1'];
    let seed = 12345;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let i = 0; i < 20_000; i++) {
      let text = '';
      for (let n = next() % 9; n > 0; n--) text += pieces[next() % pieces.length];
      same(text);
    }
  });
});

describe('createQueryParser', () => {
  it('gives the same frozen answer for the same text, and parseQuery\'s answer for another', () => {
    const parser = createQueryParser();
    const first = parser('tid=1&a=1&a=2');
    assert.equal(parser('tid=1&a=1&a=2'), first);
    assert.ok(Object.isFrozen(first) && Object.isFrozen(first.a));
    assert.deepEqual(Object.entries(parser('tid=2')), Object.entries(parseQuery('tid=2')));
    assert.notEqual(parser('tid=1&a=1&a=2'), first);
    assert.deepEqual(Object.entries(parser('k%65y=1')), Object.entries(parse('k%65y=1')));
  });
});
