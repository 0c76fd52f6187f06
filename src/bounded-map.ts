// Memos of answers used lately that a stream of distinct keys cannot grow without bound.

/**
 * Sets `key` to `value` in `map`, first forgetting everything it holds once it holds `max` entries.
 * For maps that remember answers worked out lately (a key's hash, a path's route, ...): forgetting
 * all at once costs nothing per entry, and whatever is still in use is remembered again on its next use.
 */
export function rememberBounded<K, V>(map: Map<K, V>, max: number, key: K, value: V): void {
  if (map.size >= max) map.clear();
  map.set(key, value);
}
