// Time as a dependency: the app asks the clock, tests pass a fixed one.

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** `YYYY-MM-DD HH:MM:SS`, UTC: the timestamp form of the interface spec (section 2). */
export function formatStamp(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}
