// Where an import renders STIX object versions: on a worker thread (render-worker.ts), or in its own.
import { JobThread } from '../../threads.js';
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

/** Renders on a worker thread, one job after another, answering in order. */
export class RenderThread implements Renderer {
  // Its live data is one page of rows at a time: a small heap keeps the garbage of millions of
  // rendered objects from growing the process, and a young generation held below V8's default
  // costs it no time (bench/README.md, "Current figures" and "Mirror").
  private readonly jobs = new JobThread<RenderJob, VersionRows>(import.meta.url, 'render-worker', 'rendering STIX objects', {
    maxOldGenerationSizeMb: 64,
    maxYoungGenerationSizeMb: 16,
  });

  render(job: RenderJob): Promise<VersionRows> {
    return this.jobs.run(job);
  }

  close(): Promise<void> {
    return this.jobs.close();
  }
}
