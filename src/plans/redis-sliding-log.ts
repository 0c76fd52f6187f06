// Sliding windows' logs in Redis (the failed authentications'): per key, a list of its latest event times on Redis's clock.
import type { LogCount, SlidingLogStore, SlidingWindow } from './sliding-log.js';

/** Runs a Redis call under the failure mode: `passing` when it fails open, a 503 when closed (redis-rate-limit-store.ts). */
export type RedisGuard = <T>(run: () => Promise<T>, passing: T) => Promise<T>;

/**
 * KEYS[1]: the key's list, newest first; ARGV: the window's ms, its keep, and 1 to add an event
 * now. Times are Redis's (TIME), so that instances whose clocks differ share one window. The list
 * keeps the latest `keep` times and expires a window after the latest. Replies the count within the
 * window and the ms until the oldest of them leaves it. replicate_commands lets a script that read
 * TIME write on Redis before 5 (a no-op since).
 */
const SLIDING_LOG = `
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call("TIME")
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ms = tonumber(ARGV[1])
local keep = tonumber(ARGV[2])
if ARGV[3] == "1" then
  redis.call("LPUSH", KEYS[1], string.format("%.0f", now))
  redis.call("LTRIM", KEYS[1], 0, keep - 1)
  redis.call("PEXPIRE", KEYS[1], ms)
end
local times = redis.call("LRANGE", KEYS[1], 0, keep - 1)
local count = 0
local oldest = now
for i = 1, #times do
  local at = tonumber(times[i])
  if at <= now - ms then break end
  count = count + 1
  oldest = at
end
if count == 0 then return {0, 0} end
return {count, oldest + ms - now}`.trim();

/** The logs of each sliding window under `windowPrefix(name)`, as the counters' keys are named. */
export function createRedisSlidingLogs(
  send: (args: string[]) => Promise<unknown>,
  windowPrefix: (name: string) => string,
  guard: RedisGuard,
): (window: SlidingWindow) => SlidingLogStore {
  return (window) => {
    // Failed authentications are rare next to requests: the script travels with each call (Redis keeps it compiled).
    const run = async (key: string, add: boolean): Promise<LogCount> => {
      const reply = await send(['EVAL', SLIDING_LOG, '1', `${windowPrefix(window.name)}${key}`, String(window.ms), String(window.keep), add ? '1' : '0']);
      if (!Array.isArray(reply) || reply.length !== 2) throw new TypeError('unexpected reply from Redis to the sliding-log script');
      return { count: Number(reply[0]), oldestLeavesInMs: Number(reply[1]) };
    };
    return {
      // Failing open, an event counts as the only one: the key passes, as a plan's counter does.
      add: (key) => guard(() => run(key, true), { count: 1, oldestLeavesInMs: window.ms }),
      count: (key) => guard(() => run(key, false), { count: 0, oldestLeavesInMs: 0 }),
    };
  };
}
