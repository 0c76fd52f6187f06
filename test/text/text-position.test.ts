// Lines and columns of points in text given in chunks: the same as counting in the whole text, wherever it is cut.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pointWithin, TextPosition, type TextPoint } from '../../src/text/text-position.js';

/** The point at `offset` of `text` as a person counts it: lines end at LF, columns from 1. */
function counted(text: string, offset: number): TextPoint {
  const before = text.slice(0, offset);
  return { line: before.split('\n').length, column: offset - before.lastIndexOf('\n') };
}

const TEXT = 'ab\n\ncd\r\nef😀g\n\n\nhij\n';

describe('TextPosition', () => {
  it('gives the line and column of each point asked for in order, wherever the text is cut', () => {
    for (let cut = 0; cut <= TEXT.length; cut++) {
      for (const step of [1, 2, 5]) {
        const position = new TextPosition();
        const chunks = [TEXT.slice(0, cut), TEXT.slice(cut)];
        let offset = 0;
        for (const chunk of chunks) {
          position.chunk(chunk);
          for (let i = 0; i < chunk.length; i += step) assert.deepEqual(position.at(i), counted(TEXT, offset + i), `cut at ${cut}, point ${offset + i}`);
          offset += chunk.length;
        }
        assert.deepEqual(position.end(), counted(TEXT, TEXT.length), `cut at ${cut}, the end`);
      }
    }
  });

  it('counts the LFs of a chunk whose points were not all asked for', () => {
    const position = new TextPosition();
    position.chunk('a\nb\nc');
    position.chunk('\nd');
    assert.deepEqual(position.at(1), { line: 4, column: 1 });
  });

  it('starts at line 1, column 1', () => {
    assert.deepEqual(new TextPosition().end(), { line: 1, column: 1 });
  });
});

describe('pointWithin', () => {
  it('gives the point of an offset in a text from where the text starts', () => {
    const start = { line: 4, column: 7 };
    const text = 'xy\nz\r\n😀w';
    for (let i = 0; i <= text.length; i++) {
      const inText = counted(text, i);
      const expected = inText.line === 1 ? { line: 4, column: 7 + i } : { line: 3 + inText.line, column: inText.column };
      assert.deepEqual(pointWithin(start, text, i), expected, `offset ${i}`);
    }
  });
});
