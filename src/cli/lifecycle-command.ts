// `threatgate lifecycle` and `threatgate threats retire|reactivate TID` (docs/interface.md section 3).
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { ConfigError, UsageError } from '../errors.js';
import { runLifecycle, setThreatRetired } from '../lifecycle/run-lifecycle.js';
import type { Store } from '../store/contract/store.js';

interface LifecycleDeps {
  store: Store;
  config: Config;
  clock: Clock;
  out: (line: string) => void;
}

const clean = (name: string) => name.replace(/[\r\n\t]+/g, ' ');

/** One run: a line per threat it retired, then the count of indicators that aged out. */
export async function lifecycleCommand(args: string[], deps: LifecycleDeps): Promise<void> {
  if (args.length > 0) throw new UsageError(`lifecycle: unexpected argument "${args[0]}"`);
  const counts = await runLifecycle(deps.store, deps.config.lifecycle, deps.clock);
  for (const { tid, name } of counts.retiredThreats) deps.out(`retired threat ${tid} ${clean(name)}`);
  deps.out(`${counts.retiredThreats.length} threats retired, ${counts.agedIndicators} indicators aged out`);
}

function parseTid(action: string, text: string | undefined): number {
  if (text === undefined || !/^[1-9]\d{0,15}$/.test(text) || !Number.isSafeInteger(Number(text))) {
    throw new UsageError(`threats ${action}: give one TID, a positive whole number${text === undefined ? '' : `, not "${text}"`}`);
  }
  return Number(text);
}

/** `threats retire TID` / `threats reactivate TID`: `retired TID NAME`, or that it already was. */
export async function threatsCommand(args: string[], deps: LifecycleDeps): Promise<void> {
  const [action, target, ...rest] = args;
  if (action !== 'retire' && action !== 'reactivate') throw new UsageError('threats: expected "retire TID" or "reactivate TID"');
  if (rest.length > 0) throw new UsageError(`threats ${action}: give one TID`);
  const tid = parseTid(action, target);
  const threat = await deps.store.findThreat(tid);
  if (threat === undefined) throw new ConfigError(`threats ${action}: no threat has tid ${tid}`);
  const changed = await setThreatRetired(deps.store, tid, action === 'retire', deps.clock);
  const done = action === 'retire' ? 'retired' : 'reactivated';
  deps.out(changed ? `${done} threat ${tid} ${clean(threat.threat)}` : `threat ${tid} ${clean(threat.threat)} was already ${action === 'retire' ? 'retired' : 'active'}`);
}
