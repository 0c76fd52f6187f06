// The request both open-loop load workers send (scale/mixed-load.ts, pull-bench.ts): JavaScript text
// for a worker thread's eval'd source, which imports nothing of the bench's.

/**
 * `timedGet(agent, port, path, headers, done)`: a GET to 127.0.0.1 whose body is read and dropped;
 * `done` gets the status once, or 0 for no answer (an error, or none within 60 s). The worker's
 * source must have `http` (node:http) in scope.
 */
export const TIMED_GET = `
function timedGet(agent, port, path, headers, done) {
  let answered = false;
  const finish = (status) => {
    if (answered) return;
    answered = true;
    done(status);
  };
  const req = http.get({ host: '127.0.0.1', port, path, agent, headers }, (res) => {
    res.resume();
    res.on('end', () => finish(res.statusCode));
    res.on('error', () => finish(0));
  });
  req.setTimeout(60000, () => req.destroy(new Error('timeout')));
  req.on('error', () => finish(0));
}
`;
