// A small seeded pseudo-random generator (mulberry32) so the demo data set is reproducible.

/** Draws from one deterministic stream; never touches Math.random. */
export interface Prng {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max], both inclusive. */
  int(min: number, max: number): number;
  /** True with probability `p`. */
  chance(p: number): boolean;
  /** One element of a non-empty array. */
  pick<T>(items: readonly T[]): T;
  /** `count` distinct elements of `items` (fewer when `items` is shorter), in draw order. */
  sample<T>(items: readonly T[], count: number): T[];
  /** An index drawn in proportion to `weights` (all >= 0, at least one > 0). */
  weighted(weights: readonly number[]): number;
}

/** mulberry32: 32 bits of state, good enough spread for synthetic data and very fast. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function createPrng(seed: number): Prng {
  const next = mulberry32(seed);
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1));
  const pick = <T>(items: readonly T[]): T => {
    if (items.length === 0) throw new RangeError('pick() needs a non-empty array');
    return items[int(0, items.length - 1)] as T;
  };
  const sample = <T>(items: readonly T[], count: number): T[] => {
    const wanted = Math.min(count, items.length);
    // A few picks from a large array: draw indices until distinct, instead of copying the array.
    if (wanted * 4 < items.length) {
      const indices = new Set<number>();
      while (indices.size < wanted) indices.add(int(0, items.length - 1));
      return [...indices].map((index) => items[index] as T);
    }
    // Otherwise a partial Fisher-Yates shuffle on a copy.
    const pool = items.slice();
    for (let i = 0; i < wanted; i++) {
      const j = int(i, pool.length - 1);
      [pool[i], pool[j]] = [pool[j] as T, pool[i] as T];
    }
    return pool.slice(0, wanted);
  };
  const weighted = (weights: readonly number[]): number => {
    const total = weights.reduce((sum, w) => sum + w, 0);
    let roll = next() * total;
    for (let i = 0; i < weights.length; i++) {
      roll -= weights[i] ?? 0;
      if (roll < 0) return i;
    }
    return weights.length - 1;
  };
  return { next, int, chance: (p) => next() < p, pick, sample, weighted };
}
