// Log lines are written together once per turn of the event loop, in order, and never lost on flush.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { batchedWriter } from '../../src/http/logger.js';

describe('batchedWriter', () => {
  it('writes the lines of one turn in one call, in order', async () => {
    const writes: string[] = [];
    const log = batchedWriter((text) => writes.push(text));
    log.write('a\n');
    log.write('b\n');
    assert.deepEqual(writes, []);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(writes, ['a\nb\n']);
    log.write('c\n');
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(writes, ['a\nb\n', 'c\n']);
  });

  it('writes at once past the size bound, and on flush', () => {
    const writes: string[] = [];
    const log = batchedWriter((text) => writes.push(text), 10);
    log.write('12345\n');
    log.write('67890\n');
    assert.deepEqual(writes, ['12345\n67890\n']);
    log.write('x\n');
    log.flush();
    assert.deepEqual(writes, ['12345\n67890\n', 'x\n']);
    log.flush();
    assert.equal(writes.length, 2);
  });
});
