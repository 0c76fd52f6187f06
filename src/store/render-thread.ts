// Where an import renders STIX object versions: on a worker thread (render-worker.ts), or in its own.
import { JobThread } from '../threads.js';
import { renderJobRows, type RenderJob, type VersionRows } from './version-rows.js';

/** Renders jobs, answering in the order they were given. */
export interface Renderer {
  render(job: RenderJob): Promise<VersionRows>;
  close(): Promise<void>;
}

/** Renders on the calling thread: for imports too small to be worth starting a thread. */
export function inThreadRenderer(): Renderer {
  return { render: async (job) => renderJobRows(job), close: async () => undefined };
}

const WHAT = 'rendering STIX objects';

/**
 * Renders on a worker thread, and on the calling thread too whenever the worker already has
 * `workerAhead` jobs waiting: the import's thread, between its reads and writes, renders the pages
 * the worker has no time for, so both cores render when the database is not the slower side.
 * A job rendered here is answered at once; jobs answer in order only when the caller awaits them
 * in order (renderAndStore does).
 */
export class RenderThread implements Renderer {
  // Its live data is one page of rows at a time: a small heap keeps the garbage of millions of
  // rendered objects from growing the process (an import keeps under 500 MB at a million indicators).
  private readonly jobs = new JobThread<RenderJob, VersionRows>(import.meta.url, 'render-worker', WHAT, {
    maxOldGenerationSizeMb: 64,
  });

  constructor(private readonly workerAhead = 6) {}

  render(job: RenderJob): Promise<VersionRows> {
    if (this.jobs.pending < this.workerAhead) return this.jobs.run(job);
    try {
      return Promise.resolve(renderJobRows(job));
    } catch (error) {
      // Failing as the worker's jobs fail: as a rejection, in the same words.
      return Promise.reject(new Error(`${WHAT} failed: ${error instanceof Error ? error.message : String(error)}`));
    }
  }

  close(): Promise<void> {
    return this.jobs.close();
  }
}
