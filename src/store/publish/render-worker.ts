// Entry of the render worker thread: renders, serializes and hashes STIX object versions for an
// import, so that the import's thread spends its time in the database meanwhile.
import { serveJobs } from '../../threads.js';
import { renderJobRows } from './version-rows.js';

serveJobs(renderJobRows);
