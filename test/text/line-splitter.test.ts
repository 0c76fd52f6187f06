// The line splitter: LF, CRLF and a lone CR each end a line, wherever the chunks are cut.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LineSplitter, splitLines } from '../../src/text/line-splitter.js';

/** The lines of `chunks` fed in order to one splitter. */
function split(chunks: readonly string[]): string[] {
  const splitter = new LineSplitter();
  return [...chunks.flatMap((chunk) => splitter.push(chunk)), ...splitter.end()];
}

const CASES: [string, string, string[]][] = [
  ['an empty text', '', []],
  ['a line without a break', 'a', ['a']],
  ['a line ended by LF', 'a\n', ['a']],
  ['lines ended by LF, the last without one', 'a\nbc', ['a', 'bc']],
  ['lines ended by CRLF', 'a\r\nbc\r\n', ['a', 'bc']],
  ['lines ended by a lone CR', 'a\rbc\r', ['a', 'bc']],
  ['all three breaks mixed', 'a\rb\r\nc\nd', ['a', 'b', 'c', 'd']],
  ['an empty line between LFs', 'a\n\nb', ['a', '', 'b']],
  ['an empty line between CRLFs', 'a\r\n\r\nb', ['a', '', 'b']],
  ['an empty line between lone CRs', 'a\r\rb', ['a', '', 'b']],
  ['LF then CR: two breaks, not one', 'a\n\rb', ['a', '', 'b']],
  ['only breaks', '\n\r\n\r', ['', '', '']],
  ['a text that is one CR', '\r', ['']],
  ['other characters kept as they are', ' é\t\u2028x \n', [' é\t\u2028x ']],
];

describe('LineSplitter', () => {
  describe('given the text in one chunk', () => {
    for (const [what, text, lines] of CASES) {
      it(`reads ${what} as ${JSON.stringify(lines)}`, () => assert.deepEqual(split([text]), lines));
    }
  });

  describe('given the text cut into chunks', () => {
    for (const [what, text, lines] of CASES) {
      it(`reads ${what} the same at every cut into two and three chunks, and a character at a time`, () => {
        for (let i = 0; i <= text.length; i++) {
          assert.deepEqual(split([text.slice(0, i), text.slice(i)]), lines, `cut at ${i}`);
          for (let j = i; j <= text.length; j++) {
            assert.deepEqual(split([text.slice(0, i), text.slice(i, j), text.slice(j)]), lines, `cut at ${i} and ${j}`);
          }
        }
        assert.deepEqual(split([...text]), lines);
      });
    }
  });

  describe('a CR that ends a chunk', () => {
    it('gives its line at once, before the next chunk arrives', () => {
      const splitter = new LineSplitter();
      assert.deepEqual(splitter.push('a\r'), ['a']);
      assert.deepEqual(splitter.push('\nb\n'), ['b']);
      assert.deepEqual(splitter.end(), []);
    });

    it('still takes the LF of its CRLF after an empty chunk', () => {
      assert.deepEqual(split(['a\r', '', '\nb']), ['a', 'b']);
    });

    it('takes only one LF: a second is an empty line', () => {
      assert.deepEqual(split(['a\r', '\n\nb']), ['a', '', 'b']);
    });
  });

  describe('a line across many chunks', () => {
    it('is given whole once its break arrives, and nothing before', () => {
      const splitter = new LineSplitter();
      for (let i = 0; i < 1000; i++) assert.deepEqual(splitter.push('xy'), []);
      assert.deepEqual(splitter.push('z\nnext'), ['xy'.repeat(1000) + 'z']);
      assert.deepEqual(splitter.end(), ['next']);
    });

    it('is given at the end when the text has no last break', () => {
      assert.deepEqual(split(['ab', 'cd', 'ef']), ['abcdef']);
    });
  });

  describe('after end()', () => {
    it('starts again from an empty line', () => {
      const splitter = new LineSplitter();
      splitter.push('a\r');
      splitter.end();
      assert.deepEqual(splitter.push('\nb'), ['']);
    });
  });
});

describe('splitLines', () => {
  async function* chunks(...texts: string[]): AsyncGenerator<string> {
    yield* texts;
  }
  const groups = async (texts: string[]) => {
    const out = [];
    for await (const group of splitLines(chunks(...texts))) out.push(group);
    return out;
  };

  it("numbers each chunk's lines from the line after the last group's", async () => {
    assert.deepEqual(await groups(['a\nb\r', '\nc', 'd\re\n\nf']), [
      { first: 1, lines: ['a', 'b'] },
      { first: 3, lines: ['cd', 'e', ''] },
      { first: 6, lines: ['f'] },
    ]);
  });

  it('gives no group for a chunk that completes no line, and none for an empty text', async () => {
    assert.deepEqual(await groups(['ab', 'c', 'd\n']), [{ first: 1, lines: ['abcd'] }]);
    assert.deepEqual(await groups([]), []);
    assert.deepEqual(await groups(['', '']), []);
  });
});
