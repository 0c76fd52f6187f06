// In-process rate-limit counters over fixed windows aligned to the epoch, for windows of any length.
import type { ClientRateLimitInfo, Options, Store } from 'express-rate-limit';

/**
 * express-rate-limit's MemoryStore keeps a timer per window and so refuses windows over ~24.8 days;
 * the month window (30 days) needs this one. Windows start at multiples of windowMs since the epoch,
 * so every counter resets at a predictable time, and expired counters are dropped lazily.
 */
export class FixedWindowStore implements Store {
  private windowMs = 60_000;
  private readonly counters = new Map<string, { hits: number; windowStart: number }>();
  private sweepAt = 0;
  /** The current window, as incrementNow last worked it out. */
  private windowStart = 0;
  private windowEnd = 0;
  localKeys = true;

  constructor(private readonly now: () => number = Date.now) {}

  init(options: Options): void {
    this.windowMs = options.windowMs;
    this.windowEnd = 0;
  }

  private currentWindow(): number {
    const now = this.now();
    return now - (now % this.windowMs);
  }

  /** Drops the counters of windows gone by, at most once a minute (or once a window, if shorter). */
  private sweep(windowStart: number, now: number): void {
    if (this.sweepAt > now) return;
    for (const [key, counter] of this.counters) if (counter.windowStart < windowStart) this.counters.delete(key);
    this.sweepAt = now + Math.min(this.windowMs, 60_000);
  }

  async get(key: string): Promise<ClientRateLimitInfo | undefined> {
    const counter = this.counters.get(key);
    if (!counter || counter.windowStart !== this.currentWindow()) return undefined;
    return { totalHits: counter.hits, resetTime: new Date(counter.windowStart + this.windowMs) };
  }

  async increment(key: string): Promise<ClientRateLimitInfo> {
    const { totalHits, resetMs } = this.incrementNow(key);
    return { totalHits, resetTime: new Date(resetMs) };
  }

  /** `increment` at once, for a caller in this process: the count, and when its window ends (ms since the epoch). */
  incrementNow(key: string): { totalHits: number; resetMs: number } {
    // One reading of the clock for the window and the sweep; the window's start worked out again
    // only once it has ended (a remainder of numbers this large is not cheap).
    const now = this.now();
    if (now >= this.windowEnd || now < this.windowStart) {
      this.windowStart = now - (now % this.windowMs);
      this.windowEnd = this.windowStart + this.windowMs;
    }
    const windowStart = this.windowStart;
    this.sweep(windowStart, now);
    let counter = this.counters.get(key);
    if (!counter || counter.windowStart !== windowStart) {
      counter = { hits: 0, windowStart };
      this.counters.set(key, counter);
    }
    counter.hits++;
    return { totalHits: counter.hits, resetMs: windowStart + this.windowMs };
  }

  async decrement(key: string): Promise<void> {
    const counter = this.counters.get(key);
    if (counter && counter.hits > 0) counter.hits--;
  }

  async resetKey(key: string): Promise<void> {
    this.counters.delete(key);
  }

  async resetAll(): Promise<void> {
    this.counters.clear();
  }
}
