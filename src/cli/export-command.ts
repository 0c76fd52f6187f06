// `threatgate export COLLECTION` (docs/interface.md section 11): the bytes GET /export/{collection-id}.txt|.csv sends, for cron jobs.
import { once } from 'node:events';
import { UsageError } from '../errors.js';
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Writable } from 'node:stream';
import type { CollectionConfig, Config } from '../config.js';
import { collectionByName } from '../export/collection-by-name.js';
import { exportChunks, exportCounts } from '../export/export-chunks.js';
import { ExportOptionError, parseFormat, parseMax, parseStyle, parseTypes, type ExportOptions } from '../export/export-format.js';
import type { Store } from '../store/contract/store.js';

export interface ExportFlags {
  type?: string | undefined;
  format?: string | undefined;
  style?: string | undefined;
  max?: string | undefined;
  output?: string | undefined;
}

interface ExportDeps {
  store: Store;
  config: Config;
  /** Where the list goes without --output. */
  stdout: Writable;
  /** A line on stderr: what --max left out. */
  err: (line: string) => void;
}

/** A collection by its id, as the URL names it, or by its alias. */
function findCollection(config: Config, name: string | undefined): CollectionConfig {
  const known = config.collections.map((c) => (c.alias ? `${c.id} (${c.alias})` : c.id)).join(', ');
  if (name === undefined) throw new UsageError(`export: give a COLLECTION, the id or alias of one of ${known}`);
  const collection = collectionByName(config.collections, name);
  if (!collection) throw new UsageError(`export: no collection "${name}"; configured: ${known}`);
  return collection;
}

function exportOptions(flags: ExportFlags): ExportOptions {
  const parse = <T>(flag: string, value: string | undefined, read: (value: string) => T): T | undefined => {
    try {
      return value === undefined ? undefined : read(value);
    } catch (error) {
      if (error instanceof ExportOptionError) throw new UsageError(`--${flag}: ${error.message}`);
      throw error;
    }
  };
  return {
    format: parse('format', flags.format, parseFormat) ?? 'txt',
    types: parse('type', flags.type, parseTypes),
    style: parse('style', flags.style, parseStyle),
    max: parse('max', flags.max, parseMax),
  };
}

/** Writes every chunk, waiting whenever the stream's buffer is full. */
async function writeChunks(chunks: AsyncIterable<string>, stream: Writable): Promise<void> {
  for await (const chunk of chunks) if (!stream.write(chunk)) await once(stream, 'drain');
}

/**
 * Writes the list to a temporary file beside `path` and renames it into place once complete and
 * flushed: a cron job's reader sees the previous list or the new one, and a failure leaves neither
 * a partial file nor the temporary one.
 */
export async function writeFileAtomically(chunks: AsyncIterable<string>, path: string): Promise<void> {
  const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  const file = createWriteStream(temporary, { flush: true });
  // The first error of the file, kept: a write's error may come while no call is waiting for it.
  let failure: unknown;
  file.on('error', (error) => (failure ??= error));
  const closed = new Promise<void>((resolve) => file.once('close', resolve));
  try {
    await once(file, 'open');
    await writeChunks(chunks, file);
    file.end();
    await closed;
    if (failure !== undefined) throw failure;
    await rename(temporary, path);
  } catch (error) {
    file.destroy();
    await closed;
    await rm(temporary, { force: true });
    throw error;
  }
}

export async function exportCommand(args: string[], flags: ExportFlags, deps: ExportDeps): Promise<void> {
  const [name, extra] = args;
  if (extra !== undefined) throw new UsageError(`export: unexpected argument "${extra}"`);
  const collection = findCollection(deps.config, name);
  const options = exportOptions(flags);
  // Said before the list is written, on stderr: stdout (or the file) stays a pure list, as the HTTP body does.
  if (options.max !== undefined) {
    const { total, kept, omitted } = await exportCounts(deps.store, collection, options);
    deps.err(`export: --max ${options.max} kept ${kept} of ${total} lines, left out ${omitted}`);
  }
  const chunks = exportChunks(deps.store, collection, options);
  if (flags.output === undefined) return writeChunks(chunks, deps.stdout);
  try {
    await writeFileAtomically(chunks, flags.output);
  } catch (error) {
    // A file system call's error (it names its syscall) is the output's fault: said as such, not as a crash.
    const e = error as NodeJS.ErrnoException;
    if (e?.syscall !== undefined && e.code !== undefined) throw new UsageError(`--output: cannot write ${flags.output} (${e.code})`);
    throw error;
  }
}
