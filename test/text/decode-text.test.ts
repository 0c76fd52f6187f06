// Decoding: UTF-8 across chunk boundaries, a leading byte order mark dropped, no empty chunk given.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeText, type TextSource } from '../../src/text/decode-text.js';

async function* source(...chunks: (Uint8Array | string)[]): TextSource {
  yield* chunks;
}

async function decode(...chunks: (Uint8Array | string)[]): Promise<string[]> {
  const out: string[] = [];
  for await (const text of decodeText(source(...chunks))) out.push(text);
  return out;
}

const bytes = (text: string) => new TextEncoder().encode(text);

describe('decodeText', () => {
  describe('given bytes', () => {
    it('decodes a character whose bytes are cut at every point', async () => {
      const whole = bytes('aé€😀z');
      for (let i = 0; i <= whole.length; i++) {
        for (let j = i; j <= whole.length; j++) {
          const texts = await decode(whole.slice(0, i), whole.slice(i, j), whole.slice(j));
          assert.equal(texts.join(''), 'aé€😀z', `cut at ${i} and ${j}`);
          assert.ok(texts.every((text) => text !== ''), `an empty chunk at ${i} and ${j}`);
        }
      }
    });

    it('drops a byte order mark at the start, even cut in two, and keeps one later', async () => {
      assert.equal((await decode(new Uint8Array([0xef, 0xbb]), new Uint8Array([0xbf]), bytes('a\uFEFF'))).join(''), 'a\uFEFF');
    });

    it('gives an invalid byte, and a sequence cut short at the end, as U+FFFD rather than failing', async () => {
      assert.equal((await decode(new Uint8Array([0x61, 0xff, 0x62, 0xe2, 0x82]))).join(''), 'a\uFFFDb\uFFFD');
    });
  });

  describe('given strings', () => {
    it('passes them on and drops a byte order mark that opens the first non-empty one', async () => {
      assert.deepEqual(await decode('', '\uFEFFab', '\uFEFFc'), ['ab', '\uFEFFc']);
    });

    it('gives nothing for a byte order mark alone, and reads on after it', async () => {
      assert.deepEqual(await decode('\uFEFF', 'a'), ['a']);
    });
  });

  describe('given nothing', () => {
    it('gives no chunk', async () => assert.deepEqual(await decode(), []));
  });
});
