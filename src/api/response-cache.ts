// Serialized lookup responses, kept until the data changes: most lookups then cost a map read.
import type { Clock } from '../clock.js';

export interface ResponseCacheOptions {
  /** Entries kept at most; the least recently used go first. */
  maxEntries: number;
  /** How long a checked data version is trusted before the store is asked again. */
  versionCheckMs: number;
}

/**
 * Keyed by what determines the body (endpoint and parameters, never the key or plan). The store's
 * data version is re-read at most every `versionCheckMs`, so a response lags an import by at most
 * that long, in every instance, with no messages between them.
 */
export class ResponseCache {
  private readonly entries = new Map<string, string>();
  private version: string | undefined;
  private checkedAt = -Infinity;
  private pending: Promise<void> | undefined;

  constructor(
    private readonly readVersion: () => Promise<string>,
    private readonly clock: Clock,
    private readonly options: ResponseCacheOptions,
  ) {}

  private async refreshVersion(): Promise<void> {
    const now = this.clock.now();
    if (now - this.checkedAt < this.options.versionCheckMs) return;
    // Concurrent requests share one version read.
    this.pending ??= this.readVersion()
      .then((version) => {
        if (version !== this.version) this.entries.clear();
        this.version = version;
        this.checkedAt = this.clock.now();
      })
      .finally(() => {
        this.pending = undefined;
      });
    await this.pending;
  }

  /** The cached body for `key`, or the one `build` makes (undefined bodies, e.g. not found, are not kept). */
  async get(key: string, build: () => Promise<string | undefined>): Promise<string | undefined> {
    await this.refreshVersion();
    const hit = this.entries.get(key);
    if (hit !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit;
    }
    const versionBefore = this.version;
    const body = await build();
    // A body built while the version changed might mix old and new data: serve it, don't keep it.
    if (body !== undefined && versionBefore === this.version) {
      this.entries.set(key, body);
      if (this.entries.size > this.options.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    }
    return body;
  }
}
