// Worker threads on modules of this project, whether it runs built (dist/*.js) or from source, and
// the job protocol the import's workers speak: one reply per job, in order.
import { parentPort, Worker, type ResourceLimits, type WorkerOptions } from 'node:worker_threads';

/**
 * A worker on the module `name` next to the module at `besideUrl` (pass `import.meta.url`). Run from
 * source (tests and benchmarks go through tsx), the worker first registers tsx, a development
 * dependency, to load TypeScript; built, it loads the compiled module directly.
 */
export function startModuleWorker(besideUrl: string, name: string, options: WorkerOptions = {}): Worker {
  const fromSource = besideUrl.endsWith('.ts');
  const entry = new URL(`./${name}${fromSource ? '.ts' : '.js'}`, besideUrl);
  if (!fromSource) return new Worker(entry, options);
  const boot = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(entry.href)}); })`;
  return new Worker(boot, { ...options, eval: true });
}

type JobReply<R> = { ok: true; value: R } | { ok: false; message: string };

/** In a worker module: answers every job with `handle`'s value, or with the error it threw. */
export function serveJobs<J, R>(handle: (job: J) => R): void {
  const port = parentPort;
  if (port === null) throw new Error('this module runs as a worker thread');
  port.on('message', (job: J) => {
    let reply: JobReply<R>;
    try {
      reply = { ok: true, value: handle(job) };
    } catch (error) {
      reply = { ok: false, message: error instanceof Error ? error.message : String(error) };
    }
    port.postMessage(reply);
  });
}

interface Waiting<R> {
  resolve(value: R): void;
  reject(error: Error): void;
}

/** Runs jobs on a worker module that serves them (serveJobs); jobs are answered in the order given. */
export class JobThread<J, R> {
  private readonly worker: Worker;
  private readonly waiting: Waiting<R>[] = [];
  private failure: Error | undefined;

  /** `what` names the work in errors ("rendering STIX objects"). */
  constructor(besideUrl: string, name: string, private readonly what: string, resourceLimits?: ResourceLimits) {
    this.worker = startModuleWorker(besideUrl, name, resourceLimits ? { resourceLimits } : {});
    this.worker.on('message', (reply: JobReply<R>) => {
      const next = this.waiting.shift();
      if (next === undefined) return;
      if (reply.ok) next.resolve(reply.value);
      else next.reject(new Error(`${this.what} failed: ${reply.message}`));
    });
    this.worker.on('error', (error) => this.fail(new Error(`${this.what} failed: ${error.message}`)));
    this.worker.on('exit', (code) => this.fail(new Error(`the thread ${this.what} stopped (exit code ${code})`)));
  }

  run(job: J): Promise<R> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.worker.postMessage(job);
    });
  }

  async close(): Promise<void> {
    this.failure ??= new Error(`the thread ${this.what} was closed`);
    await this.worker.terminate();
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const waiting of this.waiting.splice(0)) waiting.reject(this.failure);
  }
}
