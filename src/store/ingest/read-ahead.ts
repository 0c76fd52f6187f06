// A write's batches read one ahead of the writing. On PostgreSQL a batch's INSERT runs in the
// database's own process: while it runs, the next batch is parsed and built here, where a plain
// `for await` would leave one of the two idle at every step (bench/README.md, "PostgreSQL: staged
// rows sent as arrays").

/**
 * Yields what `source` yields, in order, asking it for the next item as soon as one is handed on.
 * A failure of the source comes out where its item would have. When the consumer stops early (it
 * threw, or broke off), the source is closed once the item it was reading meanwhile has come, and
 * whatever that read ends in is dropped: the consumer has gone.
 */
export async function* readAhead<T>(source: AsyncIterable<T>): AsyncGenerator<T, void, undefined> {
  const iterator = source[Symbol.asyncIterator]();
  let pending: Promise<IteratorResult<T>> | undefined = iterator.next();
  try {
    for (;;) {
      const result: IteratorResult<T> = await pending;
      if (result.done === true) {
        pending = undefined;
        return;
      }
      pending = iterator.next();
      // Awaited on the next round; until then a failure must not count as unhandled.
      pending.catch(() => undefined);
      yield result.value;
    }
  } finally {
    if (pending !== undefined) {
      const reading = pending;
      pending = undefined;
      void reading.then(
        async (result) => {
          if (result.done !== true) await iterator.return?.();
        },
        () => undefined,
      ).catch(() => undefined);
    }
  }
}
