// A small structured logger: one JSON object per line, levels filtered at creation.

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** Keys of every line; fields that reuse one take the slow path, where the field wins as before. */
const RESERVED = ['time', 'level', 'pid', 'msg'];

export const LOG_LEVELS = Object.keys(ORDER) as LogLevel[];

function reusesReserved(fields: Record<string, unknown>): boolean {
  for (const field of RESERVED) if (field in fields) return true;
  return false;
}

/**
 * The current time in ISO 8601 to the millisecond: the text up to the seconds is made once per
 * second, and a busy server's lines (several a millisecond) share the whole text.
 */
let lastMs = -1;
let lastIso = '';
let lastSecond = -1;
let secondPrefix = '';
function isoNow(): string {
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    const ms = now % 1000;
    const second = now - ms;
    if (second !== lastSecond) {
      lastSecond = second;
      // `2026-11-27T02:47:14.000Z` without its `000Z`.
      secondPrefix = new Date(second).toISOString().slice(0, -4);
    }
    lastIso = `${secondPrefix}${ms < 10 ? '00' : ms < 100 ? '0' : ''}${ms}Z`;
  }
  return lastIso;
}

export function createLogger(level: LogLevel, write: (line: string) => void = (line) => process.stdout.write(line)): Logger {
  const threshold = ORDER[level];
  const emit = (name: Exclude<LogLevel, 'silent'>) => {
    // The pid tells the processes of `serve --workers N` apart in one merged log.
    const after = `,"level":"${name}","pid":${process.pid},"msg":`;
    return (message: string, fields?: Record<string, unknown>) => {
      if (ORDER[name] < threshold) return;
      const time = isoNow();
      if (fields === undefined || reusesReserved(fields)) {
        write(`${JSON.stringify({ time, level: name, pid: process.pid, msg: message, ...fields })}\n`);
        return;
      }
      // The same line as above, without building a merged object for every request's line.
      const rest = JSON.stringify(fields);
      write(`{"time":"${time}"${after}${JSON.stringify(message)}${rest.length > 2 ? `,${rest.slice(1)}` : '}'}\n`);
    };
  };
  return { debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error') };
}

export const silentLogger: Logger = createLogger('silent');

/**
 * Gathers lines and writes them together: once per turn of the event loop, or with `delayMs` at most
 * that long after the first line waiting (and at once at 64 KB). A busy server logs a line per
 * request, and one write per line would cost a system call each; a few milliseconds gather hundreds
 * of lines into one. Call `flush()` before the process exits (a process 'exit' handler does).
 */
export function batchedWriter(write: (text: string) => void, maxChars = 64 * 1024, delayMs = 0): { write(line: string): void; flush(): void } {
  let lines: string[] = [];
  let size = 0;
  let timer: NodeJS.Timeout | NodeJS.Immediate | undefined;
  const flush = () => {
    if (timer !== undefined) {
      if (delayMs > 0) clearTimeout(timer as NodeJS.Timeout);
      else clearImmediate(timer as NodeJS.Immediate);
      timer = undefined;
    }
    if (lines.length === 0) return;
    const text = lines.join('');
    lines = [];
    size = 0;
    write(text);
  };
  return {
    write(line) {
      lines.push(line);
      size += line.length;
      if (size >= maxChars) flush();
      // The timer never keeps the process alive: the 'exit' handler writes what waits.
      else if (timer === undefined) timer = delayMs > 0 ? setTimeout(flush, delayMs).unref() : setImmediate(flush);
    },
    flush,
  };
}
