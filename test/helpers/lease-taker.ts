// A second process for lease tests: opens the store at argv[2] and tries to take feed argv[3]'s pull lease
// every 100 ms for argv[4] ms, as another `serve` would; prints `taken` if it ever gets it, then `done`.
import { loadConfig } from '../../src/config.js';
import { openStore } from '../../src/store/open-store.js';

const [location = '', fidText = '', forText = ''] = process.argv.slice(2);
const store = await openStore(location, { collections: loadConfig({}).collections });
const until = Date.now() + Number(forText);
let taken = false;
process.stdout.write('ready\n');
while (Date.now() < until && !taken) {
  const now = Date.now();
  // A busy database (the other process writing) counts as not taken: another `serve` would try at its next check.
  taken = await store.takePullLease(Number(fidText), 'second-process', now, now + 60_000).catch(() => false);
  await new Promise((resolve) => setTimeout(resolve, 100));
}
process.stdout.write(taken ? 'taken\ndone\n' : 'done\n');
await store.close();
