// Values that depend only on the store's contents (serialized responses, key records), kept until those
// contents change: most requests then cost a map read.
import type { Clock } from '../clock.js';

export interface ResponseCacheOptions {
  /** Entries kept at most; the least recently used go first. */
  maxEntries: number;
  /** Response text kept at most, in MB (characters of a string, bytes of a Buffer: see `sizeOf`). */
  maxMegabytes?: number;
  /** How long a checked data version is trusted before the store is asked again. */
  versionCheckMs: number;
  /**
   * Keeps a body only when its key is asked for a second time (the first time, the key is only
   * remembered, among at most `maxEntries` keys). A walk through a large TAXII collection asks for
   * each page once: without this, its pages would fill the cache to `maxMegabytes` for nothing and
   * push out the bodies that are asked for again and again (the tails SIEMs poll).
   */
  admitOnRepeat?: boolean;
}

/** Counts a cache's hits and misses (the metrics). */
export interface CacheCounter {
  hit(): void;
  miss(): void;
}

/**
 * The store's data version as last read, read again once that read is `checkMs` old; concurrent
 * readers share one read. What depends only on the data (a cached body, an export's validators)
 * then lags an import by at most `checkMs`, in every instance, with no messages between them.
 */
export class VersionWatch {
  private version: string | undefined;
  private checkedAt = -Infinity;
  private pending: Promise<string> | undefined;

  constructor(
    private readonly readVersion: () => Promise<string>,
    private readonly clock: Clock,
    private readonly checkMs: number,
  ) {}

  /** The version while the last read is recent enough, else undefined (and nothing is read). */
  fresh(): string | undefined {
    return this.version !== undefined && this.clock.now() - this.checkedAt < this.checkMs ? this.version : undefined;
  }

  /** The version: at once while the last read is recent enough (most requests), else the promise of a read now. */
  current(): string | Promise<string> {
    if (this.version !== undefined && this.clock.now() - this.checkedAt < this.checkMs) return this.version;
    this.pending ??= this.readVersion()
      .then((version) => {
        this.version = version;
        this.checkedAt = this.clock.now();
        return version;
      })
      .finally(() => {
        this.pending = undefined;
      });
    return this.pending;
  }
}

/**
 * Keyed by what determines the body (endpoint and parameters, never the key or plan). The store's
 * data version is re-read at most every `versionCheckMs`, so a response lags an import by at most
 * that long, in every instance, with no messages between them.
 */
export class ResponseCache<T = string> {
  private readonly entries = new Map<string, T>();
  /** With admitOnRepeat: keys asked for once whose bodies were not kept, oldest first. */
  private readonly seenOnce = new Set<string>();
  private size = 0;
  /** The key last set or moved to the most recently used end (when it is still kept, it is last in `entries`). */
  private newest: string | undefined;
  /** The data version the entries were built for. */
  private version: string | undefined;
  private readonly versions: VersionWatch;

  constructor(
    readVersion: () => Promise<string>,
    clock: Clock,
    private readonly options: ResponseCacheOptions,
    /** The weight of a value against maxMegabytes; strings weigh their length. */
    private readonly sizeOf: (value: T) => number = (value) => (typeof value === 'string' ? value.length : 0),
    /** Hears every lookup, hit or miss. */
    private readonly counter?: CacheCounter,
  ) {
    this.versions = new VersionWatch(readVersion, clock, options.versionCheckMs);
  }

  private clear(): void {
    this.entries.clear();
    this.newest = undefined;
    this.size = 0;
  }

  /**
   * The data version as the watch has it, the entries dropped when it moved: a promise to wait for
   * when the version is read now, undefined otherwise (most requests: they go on in the same turn).
   */
  private refreshVersion(): Promise<void> | undefined {
    const current = this.versions.current();
    if (typeof current === 'string') {
      this.adopt(current);
      return undefined;
    }
    return current.then((version) => this.adopt(version));
  }

  private adopt(version: string): void {
    if (version !== this.version) this.clear();
    this.version = version;
  }

  /** A kept body, moved to the most recently used end and counted as a hit; undefined (nothing counted) when none is kept. */
  private take(key: string): T | undefined {
    const hit = this.entries.get(key);
    if (hit !== undefined) {
      // A poller asks for the same key again and again: the most recent needs no moving.
      if (key !== this.newest) {
        this.entries.delete(key);
        this.entries.set(key, hit);
        this.newest = key;
      }
      this.counter?.hit();
    }
    return hit;
  }

  /**
   * The body kept for `key`, at once, when the data version need not be read now and the body is
   * there (counted as a hit, as `get` counts it); otherwise undefined, and `get` is the way. A hot
   * read then costs no promise: `cache.peek(key) ?? (await cache.get(key, build))`.
   */
  peek(key: string): T | undefined {
    const version = this.versions.fresh();
    if (version === undefined) return undefined;
    this.adopt(version);
    return this.take(key);
  }

  /** The cached body for `key`, or the one `build` makes (undefined bodies, e.g. not found, are not kept). */
  async get(key: string, build: () => Promise<T | undefined>): Promise<T | undefined> {
    const refreshing = this.refreshVersion();
    if (refreshing) await refreshing;
    const hit = this.take(key);
    if (hit !== undefined) return hit;
    this.counter?.miss();
    const versionBefore = this.version;
    const body = await build();
    // A body built while the version changed might mix old and new data: serve it, don't keep it.
    if (body !== undefined && versionBefore === this.version && !this.entries.has(key) && this.admits(key)) {
      this.entries.set(key, body);
      this.newest = key;
      this.size += this.sizeOf(body);
      const maxSize = (this.options.maxMegabytes ?? Infinity) * 1024 * 1024;
      while (this.entries.size > this.options.maxEntries || (this.size > maxSize && this.entries.size > 0)) {
        const oldest = this.entries.keys().next().value!;
        this.size -= this.sizeOf(this.entries.get(oldest)!);
        this.entries.delete(oldest);
      }
    }
    return body;
  }

  /**
   * Whether a body is kept for `key` under the current data version (checked as `get` checks it):
   * the fast path's question, asked before it commits to answering; at once unless the version must
   * be read first. It counts no hit or miss and changes no order; the answer's own read does that.
   */
  has(key: string): boolean | Promise<boolean> {
    const refreshing = this.refreshVersion();
    return refreshing ? refreshing.then(() => this.entries.has(key)) : this.entries.has(key);
  }

  /** Whether a body built for `key` is kept: always, or with admitOnRepeat on the key's second miss. */
  private admits(key: string): boolean {
    if (!this.options.admitOnRepeat) return true;
    // The version does not matter here: a key asked for before a change is as likely to be asked for after it.
    if (this.seenOnce.delete(key)) return true;
    this.seenOnce.add(key);
    if (this.seenOnce.size > this.options.maxEntries) this.seenOnce.delete(this.seenOnce.values().next().value!);
    return false;
  }
}
