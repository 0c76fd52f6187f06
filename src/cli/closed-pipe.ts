// Stops the command quietly when the reader of its output goes away (`threatgate keys list | head -1`).
import type { Writable } from 'node:stream';

/**
 * A reader that stops early closes the pipe, and the next write fails with EPIPE. Node ignores
 * SIGPIPE, which would otherwise end the process silently as it ends other Unix tools, so the error
 * surfaces as an unhandled 'error' event: a crash with a stack trace. This listener ends the process
 * as SIGPIPE would, without a word (there is nowhere left to write one), keeping the exit code set
 * so far: 0 unless the command had already failed. Any other stream error stays a crash.
 */
export function exitQuietlyOnClosedPipe(streams: readonly Writable[]): void {
  for (const stream of streams) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
      process.exit();
    });
  }
}
