// The one way a pull waits out an upstream's rate limit (RFC 6585 section 4, RFC 9110 section 10.2.3), shared by every paged transport.
import { setTimeout as delay } from 'node:timers/promises';
import { FetchError } from './fetch-source.js';

/** What a pull waits for rate limits in all, over every request, unless told otherwise. */
export const DEFAULT_MAX_WAIT_SECONDS = 300;
/** Limited answers in a row for one request before the pull gives up, whatever the budget left: a server that never lets go ends the pull. */
export const MAX_RETRIES = 10;
/** A `Retry-After: 0` (or a date already past) still waits this long, so a server answering it cannot make a pull spin. */
const MIN_WAIT_SECONDS = 1;

export interface RateLimitOptions {
  /** The budget of waits over the whole pull, in seconds. */
  maxWaitSeconds?: number;
  /** Aborts a wait (shutdown, the pull's maxSeconds). */
  signal?: AbortSignal;
  /** Waits; tests pass their own. Default: a timer that the signal cancels. */
  sleep?: (ms: number) => Promise<void>;
  /** Milliseconds left of the pull's maxSeconds: a wait that would outlast them fails now rather than sleeping into the deadline. */
  remainingMs?: () => number;
}

/**
 * A pull's rate-limit budget. A 429 or 503 that says `Retry-After` (seconds or an HTTP date, read
 * by fetchSource) is waited out and the request made again; one that does not say is a failure,
 * as is one asking for more than the budget or the pull's time left, or the MAX_RETRIES+1th in a
 * row. Every wait counts against the one budget, whichever request it was for.
 */
export class RateLimitWaits {
  private waited = 0;
  private readonly maxWait: number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly options: RateLimitOptions = {}) {
    this.maxWait = options.maxWaitSeconds ?? DEFAULT_MAX_WAIT_SECONDS;
    const signal = options.signal;
    this.sleep = options.sleep ?? ((ms: number) => delay(ms, undefined, signal ? { signal } : {}));
  }

  /** `request()` until it answers other than a rate limit; `where` names the request in the give-up message (`page 3`). */
  async retrying<T>(request: () => Promise<T>, where: string): Promise<T> {
    for (let retries = 0; ; retries++) {
      try {
        return await request();
      } catch (error) {
        if (!(error instanceof FetchError) || (error.status !== 429 && error.status !== 503) || error.retryAfter === undefined) throw error;
        await this.wait(error, retries, where);
      }
    }
  }

  private async wait(error: FetchError, retries: number, where: string): Promise<void> {
    const { url, status, retryAfter } = error;
    if (retries === MAX_RETRIES) throw new FetchError(url, `HTTP status ${status} ${MAX_RETRIES + 1} times in a row for ${where}`, status, retryAfter);
    const seconds = Math.max(MIN_WAIT_SECONDS, retryAfter!);
    const asked = `${error.reason}, Retry-After ${retryAfter} s`;
    if (this.waited + seconds > this.maxWait) throw new FetchError(url, `${asked}: more than the ${this.maxWait} s a pull waits`, status, retryAfter);
    const remaining = this.options.remainingMs?.();
    if (remaining !== undefined && seconds * 1000 > remaining) throw new FetchError(url, `${asked}: the pull's maxSeconds ends sooner`, status, retryAfter);
    this.waited += seconds;
    try {
      await this.sleep(seconds * 1000);
    } catch {
      // The signal ended the wait: the pull was stopped, not the upstream's fault.
      throw new FetchError(url, 'aborted');
    }
  }
}
