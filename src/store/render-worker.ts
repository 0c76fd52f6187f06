// Entry of the render worker thread: renders, serializes and hashes STIX object versions for an
// import, so that the import's thread spends its time in the database meanwhile.
import { parentPort } from 'node:worker_threads';
import { renderJob, type RenderJob } from './stix-render.js';

export type RenderReply = { ok: true; versions: ReturnType<typeof renderJob> } | { ok: false; message: string };

const port = parentPort;
if (port === null) throw new Error('render-worker.js runs as a worker thread');
port.on('message', (job: RenderJob) => {
  let reply: RenderReply;
  try {
    reply = { ok: true, versions: renderJob(job) };
  } catch (error) {
    reply = { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply);
});
