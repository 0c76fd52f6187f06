// `threatgate demo`: loads the demo data set, its stamps counted back from the clock's now, into an empty store and creates one key per plan.
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { ConfigError } from '../errors.js';
import { generateDemo } from '../demo/generate-demo.js';
import { importDataset } from '../import/import-file.js';
import { ANONYMOUS_PLAN } from '../plans/plan-rules.js';
import type { Store } from '../store/contract/store.js';
import { createKey } from './keys-command.js';

export interface DemoResult {
  keys: { plan: string; key: string }[];
  counts: { threats: number; feeds: number; indicators: number; links: number };
}

export async function loadDemo(store: Store, config: Config, clock: Clock): Promise<DemoResult> {
  if (!(await store.isEmpty())) throw new ConfigError('demo: the store already holds data; demo fills an empty store only');
  const dataset = generateDemo({ now: clock.now() });
  const summary = await importDataset(store, dataset, clock);
  const keys: DemoResult['keys'] = [];
  for (const plan of Object.keys(config.plans)) {
    if (plan === ANONYMOUS_PLAN) continue;
    keys.push({ plan, key: (await createKey(store, config, clock, plan, 'demo')).key });
  }
  return { keys, counts: summary.read };
}

/** One line per plan, `PLAN KEY`, on stdout; counts go to the log stream. */
export function printDemoKeys(result: DemoResult, out: (line: string) => void): void {
  for (const { plan, key } of result.keys) out(`${plan.padEnd(9)} ${key}`);
}
