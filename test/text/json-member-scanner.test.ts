// The JSON member scanner: a document's members read as elements, whole values or passed over, the same wherever the text is cut; a document that is an array; problems placed by line and column.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { JsonMemberScanner, type ElementPlace, type JsonProblem, type MemberRead, type MemberReader } from '../../src/text/json-member-scanner.js';
import type { TextPoint } from '../../src/text/text-position.js';

/** Reads `list` and `more` as elements, `kind` as a value, passes over the rest; writes down what it is given. */
class Recorder implements MemberReader<string> {
  readonly values: string[] = [];
  readAs(name: string): MemberRead {
    if (name === 'list' || name === 'more') return 'elements';
    return name === 'kind' ? 'value' : 'skip';
  }
  element(member: string, index: number, value: unknown): string {
    return `${member}[${index}] ${JSON.stringify(value)}`;
  }
  value(name: string, value: unknown): void {
    this.values.push(`${name} ${JSON.stringify(value)}`);
  }
  fail(problem: JsonProblem, place: ElementPlace | undefined): never {
    throw new Error(`${place === undefined ? 'document' : `${place.member}[${place.index}]`}: ${JSON.stringify(problem)}`);
  }
}

/** What the scanner makes of `chunks`: the elements and values in order, or the error it throws. */
function scan(chunks: readonly string[]): { elements: string[]; values: string[] } | string {
  const recorder = new Recorder();
  const scanner = new JsonMemberScanner(recorder);
  try {
    const elements = chunks.flatMap((chunk) => scanner.push(chunk));
    scanner.end();
    return { elements, values: recorder.values };
  } catch (error) {
    return (error as Error).message;
  }
}

/** Every cut of `text` into two chunks, into three for short texts, and one character at a time: each must read as the whole text does. */
function assertSameAtEveryCut(text: string): void {
  const whole = scan([text]);
  for (let i = 0; i <= text.length; i++) {
    assert.deepEqual(scan([text.slice(0, i), text.slice(i)]), whole, `cut at ${i}`);
    if (text.length > 80) continue;
    for (let j = i; j <= text.length; j++) {
      assert.deepEqual(scan([text.slice(0, i), text.slice(i, j), text.slice(j)]), whole, `cut at ${i} and ${j}`);
    }
  }
  assert.deepEqual(scan([...text]), whole, 'a character at a time');
}

const DOCUMENT = ` { "skipped": {"a": [1, "]}", {"b": "\\"},"}]}, "kind" : "bundle",
  "list": [ {"s": "a,b]}\\\\", "n": [[], {}]}, 12, -1.5e3, true, null, "x\\u0022,", [ ] ],
  "n\\u0061me": 7, "more": [], "other": "text" , "more2": false }`;

describe('JsonMemberScanner', () => {
  describe('a document with every kind of value', () => {
    it('gives each element of an array member parsed, in order, with its member and index', () => {
      assert.deepEqual(scan([DOCUMENT]), {
        elements: ['list[0] {"s":"a,b]}\\\\","n":[[],{}]}', 'list[1] 12', 'list[2] -1500', 'list[3] true', 'list[4] null', 'list[5] "x\\","', 'list[6] []'],
        values: ['kind "bundle"'],
      });
    });

    it('reads the same at every cut: inside strings and escapes, between a CR and its LF, in numbers and names', () => {
      assertSameAtEveryCut(DOCUMENT);
      assertSameAtEveryCut('{"list":[1,2],\r\n"kind":"k"}\r\n');
      assertSameAtEveryCut('{}');
    });
  });

  describe('members', () => {
    it('are asked about once each, by their decoded name, when their value starts', () => {
      const asked: string[] = [];
      const scanner = new JsonMemberScanner(
        new (class extends Recorder {
          override readAs(name: string): MemberRead {
            asked.push(name);
            return 'skip';
          }
        })(),
      );
      scanner.push('{"a": 1, "b\\u0063": [2], "d": {}}');
      scanner.end();
      assert.deepEqual(asked, ['a', 'bc', 'd']);
    });

    it('that the reader refuses stop the scan with the error the reader throws', () => {
      const scanner = new JsonMemberScanner(
        new (class extends Recorder {
          override readAs(): MemberRead {
            throw new Error('no such member');
          }
        })(),
      );
      assert.throws(() => scanner.push('{"x": 1}'), /no such member/);
    });

    it('passed over may nest deeper than any recursion', () => {
      const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
      assert.deepEqual(scan([`{"skipped": ${deep}, "list": [1]}`]), { elements: ['list[0] 1'], values: [] });
    });
  });

  describe('documents it refuses', () => {
    const cases: [string, string, string][] = [
      ['an empty text', '', 'document: {"code":"empty"}'],
      ['only whitespace', ' \n', 'document: {"code":"empty"}'],
      ['an array', '[1]', 'document: {"code":"not-object"}'],
      ['a member name not quoted', '{list: []}', 'document: {"code":"expected-name","found":"l"}'],
      ['a trailing comma after a member', '{"list": [],}', 'document: {"code":"expected-name","found":"}"}'],
      ['a member name with a bad escape', '{"a\\x": 1}', 'document: {"code":"bad-name"}'],
      ['no colon', '{"list" []}', 'document: {"code":"expected-colon","name":"list"}'],
      ['an element member that is not an array', '{"list": {"a": 1}}', 'document: {"code":"not-array","name":"list"}'],
      ['a stray comma at the end of an array', '{"list": [1,]}', 'list[1]: {"code":"empty-element"}'],
      ['a stray comma at the start of an array', '{"list": [,1]}', 'list[0]: {"code":"empty-element"}'],
      ['two commas', '{"list": [1,,2]}', 'list[1]: {"code":"empty-element"}'],
      ['two elements without a comma', '{"list": [{} {}]}', 'list[0]: {"code":"expected-element-end","found":"{"}'],
      ['two members without a comma', '{"list": [] "more": []}', 'document: {"code":"expected-member-end","found":"\\""}'],
      ['text after the document', '{} x', 'document: {"code":"trailing-text"}'],
      ['a second document', '{}{}', 'document: {"code":"trailing-text"}'],
      ['an element that is not JSON', '{"list": [{"a": tru}]}', 'list[0]: {"code":"invalid-json","reason":'],
      ['a bad scalar element', '{"list": [1, nul]}', 'list[1]: {"code":"invalid-json","reason":'],
      ['a value member that is not JSON', '{"kind": "a\\q"}', 'document: {"code":"invalid-json","reason":'],
      ['a document cut inside an element', '{"list": [{"a": "b', 'list[0]: {"code":"truncated"}'],
      ['a document cut between elements', '{"list": [1,', 'document: {"code":"truncated"}'],
      ['a document cut inside a name', '{"li', 'document: {"code":"truncated"}'],
      ['a document cut after its last member', '{"list": []', 'document: {"code":"truncated"}'],
    ];
    for (const [what, text, message] of cases) {
      it(`${what}: ${message}`, () => {
        const result = scan([text]);
        assert.equal(typeof result, 'string', `read as ${JSON.stringify(result)}`);
        assert.ok((result as string).startsWith(message), result as string);
        assertSameAtEveryCut(text);
      });
    }
  });
});

describe('JsonMemberScanner, for documents of records', () => {
  /** Reads `rows` as elements-or-value, a document that is an array as `rows`; errors give their line and column. */
  class RowsReader implements MemberReader<string> {
    readonly rootArray = 'rows';
    readonly values: string[] = [];
    readAs(name: string): MemberRead {
      return name === 'rows' ? 'elements-or-value' : 'value';
    }
    element(member: string, index: number, value: unknown): string {
      return `${member}[${index}] ${JSON.stringify(value)}`;
    }
    value(name: string, value: unknown): void {
      this.values.push(`${name} ${JSON.stringify(value)}`);
    }
    fail(problem: JsonProblem, _place: ElementPlace | undefined, at: TextPoint): never {
      throw new Error(`${at.line}:${at.column} ${problem.code}`);
    }
  }

  function rows(chunks: readonly string[]): string[] | string {
    const reader = new RowsReader();
    const scanner = new JsonMemberScanner(reader);
    try {
      const out = chunks.flatMap((chunk) => scanner.push(chunk));
      scanner.end();
      return [...out, ...reader.values];
    } catch (error) {
      return (error as Error).message;
    }
  }

  function sameAtEveryCut(text: string): string[] | string {
    const whole = rows([text]);
    for (let i = 0; i <= text.length; i++) assert.deepEqual(rows([text.slice(0, i), text.slice(i)]), whole, `cut at ${i}`);
    assert.deepEqual(rows([...text]), whole, 'a character at a time');
    return whole;
  }

  /** The line and column of JSON.parse's error in `text`, when it names a position (`L:C`). */
  function parsePoint(text: string): string | undefined {
    try {
      JSON.parse(text);
      return undefined;
    } catch (error) {
      const at = /at position (\d+)/.exec((error as Error).message)?.[1];
      if (at === undefined) return undefined;
      const before = text.slice(0, Number(at));
      return `${before.split('\n').length}:${Number(at) - before.lastIndexOf('\n')}`;
    }
  }

  it('reads a document that is an array as the member the reader names', () => {
    assert.deepEqual(sameAtEveryCut(' [ {"a": [1]}, 2 ,"]"]\n'), ['rows[0] {"a":[1]}', 'rows[1] 2', 'rows[2] "]"']);
    assert.deepEqual(sameAtEveryCut('[]'), []);
  });

  it('cuts an array member into its elements and parses any other value whole (elements-or-value)', () => {
    assert.deepEqual(sameAtEveryCut('{"rows": [1, {"b": 2}], "x": {"c": [3]}, "rows": {"d": 4}, "rows": "e"}'), [
      'rows[0] 1',
      'rows[1] {"b":2}',
      'x {"c":[3]}',
      'rows {"d":4}',
      'rows "e"',
    ]);
  });

  it('places each problem at the line and column JSON.parse of the whole text names', () => {
    const cases: [string, string][] = [
      ['[1,\n 2 3]', '2:4 expected-element-end'],
      ['[1] x', '1:5 trailing-text'],
      ['{"rows": [\r\n  {"a": "b\\q"}]}', '2:12 invalid-json'],
      ['{"a":\n\n  1 "b": 2}', '3:5 expected-member-end'],
      ['{\n "n\\x": 1}', '2:5 bad-name'],
      ['[1,\n', '2:1 truncated'],
      ['{"rows": [{"a":\n "😀\t"}]}', '2:5 invalid-json'],
    ];
    for (const [text, expected] of cases) {
      assert.equal(sameAtEveryCut(text), expected, text);
      const point = parsePoint(text);
      if (point !== undefined) assert.equal(point, expected.split(' ')[0], `JSON.parse on ${JSON.stringify(text)}`);
    }
  });
});
