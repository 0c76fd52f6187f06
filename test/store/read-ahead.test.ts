// A write's batches read one ahead of the writing (src/store/ingest/read-ahead.ts): the same items in
// the same order, the next one asked for while the consumer works, a source's failure where its item
// would have been, and a source closed when the consumer stops early, without an unhandled rejection.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setImmediate as turn } from 'node:timers/promises';
import { readAhead } from '../../src/store/ingest/read-ahead.js';

/** A source of `count` items that records when each is asked for and whether it was closed. */
function recordedSource(count: number, failAt?: number) {
  const log: string[] = [];
  let closed = false;
  async function* items(): AsyncGenerator<number> {
    try {
      for (let i = 0; i < count; i++) {
        await turn();
        log.push(`read ${i}`);
        if (i === failAt) throw new Error(`the source failed at ${i}`);
        yield i;
      }
    } finally {
      closed = true;
    }
  }
  return { items: items(), log, closed: () => closed };
}

describe('readAhead', () => {
  it('yields every item in order, reading the next while the consumer works on one', async () => {
    const source = recordedSource(4);
    const seen: number[] = [];
    for await (const item of readAhead(source.items)) {
      source.log.push(`write ${item} start`);
      await turn();
      await turn();
      source.log.push(`write ${item} end`);
      seen.push(item);
    }
    assert.deepEqual(seen, [0, 1, 2, 3]);
    // Item 1 is read while item 0 is written, and so on.
    assert.deepEqual(source.log.slice(0, 5), ['read 0', 'write 0 start', 'read 1', 'write 0 end', 'write 1 start']);
    assert.equal(source.closed(), true);
  });

  it('throws the source\'s failure where its item would have come, after the items before it', async () => {
    const source = recordedSource(5, 2);
    const seen: number[] = [];
    await assert.rejects(
      (async () => {
        for await (const item of readAhead(source.items)) seen.push(item);
      })(),
      /the source failed at 2/,
    );
    assert.deepEqual(seen, [0, 1]);
  });

  it('closes the source when the consumer throws, and a later failure of the read meanwhile goes nowhere', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      // The read running when the consumer throws fails too: nothing may surface of it.
      const source = recordedSource(5, 1);
      await assert.rejects(
        (async () => {
          for await (const item of readAhead(source.items)) throw new Error(`the write of ${item} failed`);
        })(),
        /the write of 0 failed/,
      );
      // A consumer that breaks off while the source could go on: the source is closed once its read is in.
      const longer = recordedSource(10);
      for await (const item of readAhead(longer.items)) if (item === 3) break;
      for (let i = 0; i < 5 && !longer.closed(); i++) await turn();
      assert.equal(longer.closed(), true);
      assert.deepEqual(longer.log, ['read 0', 'read 1', 'read 2', 'read 3', 'read 4']);
      for (let i = 0; i < 5; i++) await turn();
      assert.deepEqual(unhandled, []);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
