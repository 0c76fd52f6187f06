// Starts worker threads on modules of this project, whether it runs built (dist/*.js) or from source.
import { Worker, type WorkerOptions } from 'node:worker_threads';

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
