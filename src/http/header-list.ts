// Response headers gathered before a response is written, then written in one writeHead (the fast path, fast-path.ts).
import type { ServerResponse } from 'node:http';
import { rememberBounded } from '../bounded-map.js';
import { RequestSlot } from '../request-slot.js';

type HeaderValue = string | number | readonly string[];

/** Where headers are set: a node response, or a HeaderList standing in for one until the response is written. */
export interface HeaderSink {
  setHeader(name: string, value: HeaderValue): unknown;
  removeHeader(name: string): void;
  readonly headersSent: boolean;
}

/** Header names in lower case, as set lately: the code's own few dozen names, each lowered once rather than per response. */
const lowered = new Map<string, string>();

function lowerCase(name: string): string {
  let lower = lowered.get(name);
  if (lower === undefined) {
    lower = name.toLowerCase();
    rememberBounded(lowered, 1_000, name, lower);
  }
  return lower;
}

/**
 * Headers in the order they were set, as node keeps a response's own: a name is matched without
 * regard to case, a name set again keeps its place with the new value, and a name removed and set
 * again goes last. node checks each name and value when a response is written with them all
 * (`writeHead` with a list), as `setHeader` checks them one at a time; what is saved is the work
 * `setHeader` does besides (a lower-cased copy of the name and an entry per header, per request).
 */
export class HeaderList implements HeaderSink {
  readonly headersSent = false;
  /** The names in lower case, in order, and beside them the names as set and their values (name, value, name, value, ...). */
  private readonly keys: string[];
  private readonly pairs: (string | HeaderValue)[];

  /** Empty, or holding what `from` holds (a copy: the two go on apart). A response's headers are a few dozen: arrays copy and search them faster than a map. */
  constructor(from?: HeaderList) {
    this.keys = from ? from.keys.slice() : [];
    this.pairs = from ? from.pairs.slice() : [];
  }

  setHeader(name: string, value: HeaderValue): this {
    const key = lowerCase(name);
    const at = this.keys.indexOf(key);
    if (at === -1) {
      this.keys.push(key);
      this.pairs.push(name, value);
    } else {
      this.pairs[2 * at] = name;
      this.pairs[2 * at + 1] = value;
    }
    return this;
  }

  removeHeader(name: string): void {
    const at = this.keys.indexOf(lowerCase(name));
    if (at === -1) return;
    this.keys.splice(at, 1);
    this.pairs.splice(2 * at, 2);
  }

  /** Writes the status and the headers: at once in one list when the response holds none, else set on it one by one in order. */
  writeHead(res: ServerResponse, status: number): void {
    if (res.getHeaderNames().length > 0) {
      this.moveTo(res);
      res.writeHead(status);
      return;
    }
    res.writeHead(status, this.pairs as string[]);
  }

  /** Sets every header on `res` in order (the response is then written as any other). */
  moveTo(res: ServerResponse): void {
    for (let i = 0; i < this.pairs.length; i += 2) res.setHeader(this.pairs[i] as string, this.pairs[i + 1] as HeaderValue);
    this.keys.length = 0;
    this.pairs.length = 0;
  }
}

/** Responses whose headers wait in a list until their body is sent (sendBytes writes them with it). */
const deferred = new RequestSlot<HeaderList>('deferred headers');

/** From now on the response's headers wait in `list`, until sendBytes writes them (or their taker moves them onto the response). */
export function deferHeaders(res: object, list: HeaderList): void {
  deferred.set(res, list);
}

/** The list a response's headers wait in, if any, to set more headers in. */
export function deferredHeaders(res: object): HeaderList | undefined {
  return deferred.get(res);
}

/** The list a response's headers wait in, taken off it: the caller writes them. */
export function takeDeferredHeaders(res: object): HeaderList | undefined {
  const list = deferred.get(res);
  if (list !== undefined) deferred.set(res, undefined);
  return list;
}
