// rememberBounded: a memo never holds more than its bound, and keeps what was set last.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rememberBounded } from '../src/bounded-map.js';

describe('rememberBounded', () => {
  it('holds at most max entries, forgetting all at once when full, and keeps the newest', () => {
    const map = new Map<string, number>();
    for (let i = 0; i < 3; i++) rememberBounded(map, 3, `k${i}`, i);
    assert.deepEqual([...map], [['k0', 0], ['k1', 1], ['k2', 2]]);
    rememberBounded(map, 3, 'k3', 3);
    assert.deepEqual([...map], [['k3', 3]]);
    for (let i = 0; i < 1000; i++) rememberBounded(map, 3, `x${i}`, i);
    assert.ok(map.size <= 3);
    assert.equal(map.get('x999'), 999);
  });
});
