// A worker thread that renders STIX object versions (render-worker.ts), answering jobs in order.
import type { Worker } from 'node:worker_threads';
import { startModuleWorker } from '../threads.js';
import type { RenderReply } from './render-worker.js';
import { renderJob, type RenderedVersion, type RenderJob } from './stix-render.js';

/** Renders jobs, answering in the order they were given. */
export interface Renderer {
  render(job: RenderJob): Promise<RenderedVersion[]>;
  close(): Promise<void>;
}

/** Renders on the calling thread: for imports too small to be worth starting a thread. */
export function inThreadRenderer(): Renderer {
  return { render: async (job) => renderJob(job), close: async () => undefined };
}

interface Waiting {
  resolve(versions: RenderedVersion[]): void;
  reject(error: Error): void;
}

export class RenderThread implements Renderer {
  private readonly worker: Worker;
  private readonly waiting: Waiting[] = [];
  private failure: Error | undefined;

  constructor() {
    // Its live data is one page of rows at a time: a small heap keeps the garbage of millions of
    // rendered objects from growing the process (an import keeps under 500 MB at a million indicators).
    this.worker = startModuleWorker(import.meta.url, 'render-worker', { resourceLimits: { maxOldGenerationSizeMb: 64 } });
    this.worker.on('message', (reply: RenderReply) => {
      const next = this.waiting.shift();
      if (next === undefined) return;
      if (reply.ok) next.resolve(reply.versions);
      else next.reject(new Error(`rendering STIX objects failed: ${reply.message}`));
    });
    this.worker.on('error', (error) => this.fail(new Error(`the render worker failed: ${error.message}`)));
    this.worker.on('exit', (code) => this.fail(new Error(`the render worker stopped (exit code ${code})`)));
  }

  /** The versions of the job's rows, in order. Jobs are answered in the order they were given. */
  render(job: RenderJob): Promise<RenderedVersion[]> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.worker.postMessage(job);
    });
  }

  async close(): Promise<void> {
    this.failure ??= new Error('the render worker was closed');
    await this.worker.terminate();
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const waiting of this.waiting.splice(0)) waiting.reject(this.failure);
  }
}
