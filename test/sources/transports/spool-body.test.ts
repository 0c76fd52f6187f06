// spoolBody: a body written to its file whole with its hash and head, and a body that fails at any moment (a write to the file in flight or not) failing the spool with the body's own error, its file removed, never the process.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, it } from 'node:test';
import { spoolBody } from '../../../src/sources/transports/spool-body.js';

describe('spoolBody', () => {
  it('writes the body to its file, with its SHA-256, size and first bytes', async () => {
    async function* body() {
      yield 'a'.repeat(600);
      yield Buffer.from('b'.repeat(600));
    }
    const spooled = await spoolBody(body());
    try {
      const text = 'a'.repeat(600) + 'b'.repeat(600);
      assert.equal(readFileSync(spooled.path, 'utf8'), text);
      assert.deepEqual([spooled.hash, spooled.bytes, spooled.head.toString()], [createHash('sha256').update(text).digest('hex'), 1200, text.slice(0, 1024)]);
    } finally {
      await spooled.remove();
    }
  });

  it('fails with the body\'s error and removes its file, however far the writes had got', async () => {
    // The failure comes 0 to 3 ms after the first chunk: before the file is open, while the write is
    // in flight (Node then reports the destroyed write as an error of its own), and after it.
    for (let attempt = 0; attempt < 300; attempt++) {
      const cut = Object.assign(new Error('connection closed before the body ended (ECONNRESET)'), { attempt });
      async function* body() {
        yield Buffer.alloc(1000, 'x');
        const until = performance.now() + (attempt % 30) / 10;
        while (performance.now() < until) await new Promise((resolve) => setImmediate(resolve));
        throw cut;
      }
      await assert.rejects(spoolBody(body()), (error) => error === cut);
    }
    // Every spool's folder is gone (pull-temp.ts names them after this process).
    assert.deepEqual(readdirSync(tmpdir()).filter((name) => name.startsWith(`threatgate-pull-${process.pid}-`)), []);
  });
});
