// GET /export/{collection-id}.txt|.csv (docs/interface.md section 11): validators first, then the list streamed, gzipped when asked.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { createGzip } from 'node:zlib';
import type { Request, RequestHandler, Response } from 'express';
import { BadRequestError } from '../errors.js';
import type { Logger } from '../logger.js';
import { singleParam } from '../http/query-params.js';
import { requestPath } from '../http/request-log.js';
import type { VersionWatch } from '../http/response-cache.js';
import type { Store } from '../store/contract/store.js';
import { getCollection } from '../taxii/collection-resolver.js';
import { exportChunks, exportCounts } from './export-chunks.js';
import { ExportOptionError, parseMax, parseStyle, parseTypes, type ExportFormat, type ExportOptions } from './export-format.js';
import { exportValidators } from './export-validators.js';

const CONTENT_TYPES: Record<ExportFormat, string> = {
  txt: 'text/plain; charset=utf-8',
  // RFC 4180 section 3: `header=present` tells a reader the first line names the fields.
  csv: 'text/csv; charset=utf-8; header=present',
};

/** `type`, `style` and `max`, each given at most once; a bad value is a 400 naming its parameter. */
export function exportOptions(req: Request, format: ExportFormat): ExportOptions {
  const parse = <T>(name: string, read: (value: string) => T): T | undefined => {
    const value = singleParam(req, name);
    try {
      return value === undefined ? undefined : read(value);
    } catch (error) {
      if (error instanceof ExportOptionError) throw new BadRequestError(`Parameter "${name}": ${error.message}.`);
      throw error;
    }
  };
  return { format, types: parse('type', parseTypes), style: parse('style', parseStyle), max: parse('max', parseMax) };
}

/**
 * gzip runs on libuv's thread pool, one output buffer (chunkSize) at a time, each a round trip
 * through the main thread. zlib's default buffer is small beside a page of CSV; a buffer about a
 * page long, with room for a few pages in front of it, makes one round trip a page, so a page is
 * compressed while the next is read. Level 4 rather than zlib's default 6: much less CPU for a body
 * only a little larger, and a firewall polls the same list every few minutes, so the server's CPU
 * counts for more than the bytes. The export bench (bench/export-bench.ts, `npm run bench:export`)
 * measures both; its figures are in bench/README.md, "Exports".
 */
const GZIP_OPTIONS = { level: 4, writableHighWaterMark: 1 << 20, chunkSize: 256 * 1024 };

/** A client that hangs up mid-list ends the stream early: nothing went wrong on this side. */
const hungUp = (error: unknown) => (error as NodeJS.ErrnoException | undefined)?.code === 'ERR_STREAM_PREMATURE_CLOSE';

/**
 * The validators follow the data version as `versions` last read it (a poll that finds the list
 * unchanged costs no store read): an import shows in them within `cache.versionCheckMs`, as it shows
 * in every cached answer. A list sent in that time carries the validators of before; the next poll
 * sees the new ones and gets the list again.
 */
export function createExportSender(deps: { store: Store; logger: Logger; versions: VersionWatch }, format: ExportFormat): RequestHandler {
  return async (req: Request, res: Response) => {
    const collection = getCollection(res);
    const options = exportOptions(req, format);
    const { etag, lastModified } = exportValidators(await deps.versions.current(), collection, options);
    res.statusCode = 200;
    res.setHeader('ETag', etag);
    if (lastModified !== undefined) res.setHeader('Last-Modified', lastModified);
    // Readable by the key's holder only, and checked with the server before each reuse.
    res.setHeader('Cache-Control', 'private, no-cache');
    res.setHeader('Vary', 'Accept-Encoding');
    if (req.fresh) {
      res.statusCode = 304;
      res.end();
      return;
    }
    res.setHeader('Content-Type', CONTENT_TYPES[format]);
    // What the list has and what `max` left out, in headers: the body stays a pure list (docs/interface.md section 11).
    // Only with `max`: without it nothing is left out, and the count would be a second pass over
    // the whole collection on every full read of a large list. A 304 has neither.
    if (options.max !== undefined) {
      const counts = await exportCounts(deps.store, collection, options);
      res.setHeader('X-Export-Total', String(counts.total));
      res.setHeader('X-Export-Omitted', String(counts.omitted));
    }
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    const chunks = exportChunks(deps.store, collection, options);
    // The first page is read before anything is sent: a store fault is still an error response.
    const first = await chunks.next();
    const gzip = req.acceptsEncodings('gzip', 'identity') === 'gzip';
    if (gzip) res.setHeader('Content-Encoding', 'gzip');
    const body = Readable.from(
      (async function* () {
        if (first.done !== true) yield first.value;
        for await (const chunk of chunks) {
          // A page is read without a pause for I/O: this pause lets gzip's finished work out, so
          // that it compresses a page while the next one is read (bench/README.md, exports).
          await nextTurn();
          yield chunk;
        }
      })(),
    );
    try {
      await (gzip ? pipeline(body, createGzip(GZIP_OPTIONS), res) : pipeline(body, res));
    } catch (error) {
      // The status line is gone: the response is cut off (no final chunk), so no client takes a partial list for the whole.
      if (!hungUp(error)) deps.logger.error('export stream failed', { path: requestPath(req), error: error instanceof Error ? error.message : String(error) });
      res.destroy();
    }
  };
}
