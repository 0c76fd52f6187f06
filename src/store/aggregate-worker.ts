// Entry of the aggregate worker thread: accumulates the feed and threat aggregates of a large
// import from the chunks of indicators the import's thread reads.
import { serveJobs } from '../threads.js';
import { Aggregates, type AggregateJob, type AggregateResults } from './aggregates.js';

const aggregates = new Aggregates();

serveJobs((job: AggregateJob): AggregateResults | null => {
  if ('add' in job) {
    aggregates.add(job.add);
    return null;
  }
  return aggregates.results(job.results.fids, job.results.tids);
});
