// Sliding windows of events per key (the failed authentications): the times of each key's latest events, kept in this process.

/**
 * A sliding window: an event counts for `ms` after it happened, whatever the clock's minute. Only
 * the latest `keep` events of a key are kept: a limit of `keep` needs no more (docs/interface.md 7.3).
 */
export interface SlidingWindow {
  /** Names the logs apart in a shared store (a Redis key prefix, the cluster primary's logs). */
  readonly name: string;
  readonly ms: number;
  readonly keep: number;
}

/** A key's events within the window (of the latest `keep`), and in how many ms the oldest of them leaves it (0 when none). */
export interface LogCount {
  count: number;
  oldestLeavesInMs: number;
}

/** A window's logs, in this process, at the cluster primary or in Redis. */
export interface SlidingLogStore {
  /** Adds one event of `key`, now; its count after. */
  add(key: string): Promise<LogCount>;
  /** `key`'s count, now. */
  count(key: string): Promise<LogCount>;
}

/**
 * The logs in this process: per key, the times of its latest `keep` events, oldest first. A key
 * whose events have all left the window is dropped, at the latest one window after (a sweep at most
 * once a window), so memory holds the keys with events in the last window or two, `keep` times each.
 */
export class MemorySlidingLog implements SlidingLogStore {
  private readonly logs = new Map<string, number[]>();
  private sweepAt = 0;

  constructor(
    private readonly window: Pick<SlidingWindow, 'ms' | 'keep'>,
    private readonly now: () => number = Date.now,
  ) {}

  /** `add` at once, for a caller in this process (the cluster primary). */
  addNow(key: string): LogCount {
    const now = this.now();
    this.sweep(now);
    let times = this.logs.get(key);
    if (times === undefined) {
      times = [];
      this.logs.set(key, times);
    }
    times.push(now);
    if (times.length > this.window.keep) times.splice(0, times.length - this.window.keep);
    return this.countAt(times, now);
  }

  countNow(key: string): LogCount {
    const times = this.logs.get(key);
    return times === undefined ? { count: 0, oldestLeavesInMs: 0 } : this.countAt(times, this.now());
  }

  async add(key: string): Promise<LogCount> {
    return this.addNow(key);
  }

  async count(key: string): Promise<LogCount> {
    return this.countNow(key);
  }

  /** Drops the times that have left the window (a clock set back keeps them: they count until it catches up). */
  private countAt(times: number[], now: number): LogCount {
    const since = now - this.window.ms;
    let first = 0;
    while (first < times.length && times[first]! <= since) first++;
    if (first > 0) times.splice(0, first);
    return times.length === 0 ? { count: 0, oldestLeavesInMs: 0 } : { count: times.length, oldestLeavesInMs: times[0]! + this.window.ms - now };
  }

  private sweep(now: number): void {
    if (this.sweepAt > now) return;
    const since = now - this.window.ms;
    for (const [key, times] of this.logs) {
      const latest = times[times.length - 1];
      if (latest === undefined || latest <= since) this.logs.delete(key);
    }
    this.sweepAt = now + this.window.ms;
  }
}
