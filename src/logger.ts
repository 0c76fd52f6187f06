// A small structured logger: one JSON object per line, levels filtered at creation.
import { rememberBounded } from './bounded-map.js';

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

/** Every level, least severe first: what LOG_LEVEL may say. */
export const LOG_LEVELS: readonly LogLevel[] = Object.keys(ORDER) as LogLevel[];

export function isLogLevel(text: string): text is LogLevel {
  return Object.hasOwn(ORDER, text);
}

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

/** Text JSON writes as it is: printable ASCII but `"` and the backslash. */
const PLAIN_TEXT = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** `,"name":` for the field names logged lately (they are the code's own, a few dozen). */
const nameTexts = new Map<string, string>();

function nameText(name: string): string {
  let text = nameTexts.get(name);
  if (text === undefined) {
    text = `,${JSON.stringify(name)}:`;
    rememberBounded(nameTexts, 1_000, name, text);
  }
  return text;
}

/**
 * The members of `JSON.stringify(fields)`, each after a comma (`,"a":1,"b":"x"`), written out
 * field by field: a log line's fields are a handful of short strings and numbers, which need no
 * escaping, and everything else is left to JSON.stringify. An object that is not a plain one (a
 * prototype of its own, a toJSON) is JSON.stringify's alone.
 */
export function fieldsText(fields: Record<string, unknown>): string {
  if (Object.getPrototypeOf(fields) !== Object.prototype || 'toJSON' in fields) {
    const all = JSON.stringify(fields);
    return all.length > 2 ? `,${all.slice(1, -1)}` : '';
  }
  let text = '';
  // Own names only, as JSON.stringify takes them (for-in would take inherited ones too).
  for (const name of Object.keys(fields)) {
    const value = fields[name];
    switch (typeof value) {
      case 'string':
        text += nameText(name) + (PLAIN_TEXT.test(value) ? `"${value}"` : JSON.stringify(value));
        break;
      case 'number':
        text += nameText(name) + (Number.isFinite(value) ? `${value}` : 'null');
        break;
      case 'boolean':
        text += nameText(name) + (value ? 'true' : 'false');
        break;
      // JSON leaves these out of an object.
      case 'undefined':
      case 'function':
      case 'symbol':
        break;
      default: {
        // null, objects, and a bigint (which JSON.stringify refuses, as it would here).
        const json = JSON.stringify(value) as string | undefined;
        if (json !== undefined) text += nameText(name) + json;
      }
    }
  }
  return text;
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
      write(`{"time":"${time}"${after}${JSON.stringify(message)}${fieldsText(fields)}}\n`);
    };
  };
  return { debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error') };
}

export const silentLogger: Logger = createLogger('silent');

/**
 * Gathers lines and writes them once per turn of the event loop (or at 64 KB): a busy server logs a
 * line per request, and one write per line would cost a system call each. Call `flush()` before the
 * process exits (a process 'exit' handler does).
 */
export function batchedWriter(write: (text: string) => void, maxChars = 64 * 1024): { write(line: string): void; flush(): void } {
  let lines: string[] = [];
  let size = 0;
  let scheduled = false;
  const flush = () => {
    scheduled = false;
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
      else if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    flush,
  };
}
