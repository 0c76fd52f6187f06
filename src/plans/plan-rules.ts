// Plan rules (docs/interface.md section 8): pure functions of the configured plans.
import type { Config, Plan } from '../config.js';
import { ForbiddenError } from '../errors.js';

export const ANONYMOUS_PLAN = 'anonymous';

/** Who is asking: a key's id and plan, or nobody (limited by client IP). */
export interface Client {
  keyId: string | null;
  planName: string;
  plan: Plan;
}

export function planNamed(config: Config, name: string): Plan | undefined {
  return Object.hasOwn(config.plans, name) ? config.plans[name] : undefined;
}

export function anonymousClient(config: Config): Client {
  return { keyId: null, planName: ANONYMOUS_PLAN, plan: config.plans[ANONYMOUS_PLAN]! };
}

const displayName = (planName: string) => (planName === ANONYMOUS_PLAN ? 'Requests without an API key' : `The ${planName[0]!.toUpperCase()}${planName.slice(1)} plan`);

/** "Pages per request": pages 0 .. pages-1 of a paginated query are readable; a later page is 403. */
export function assertPageAllowed(client: Client, page: number): void {
  if (page >= client.plan.pages) {
    const n = client.plan.pages;
    throw new ForbiddenError(`${displayName(client.planName)} may read ${n} page${n === 1 ? '' : 's'} per request (pages 0 to ${n - 1}); page ${page} is beyond that limit.`);
  }
}

/** Plans that include the whole TAXII export, for error messages. */
export function taxiiPlanNames(config: Config): string[] {
  return Object.entries(config.plans)
    .filter(([, plan]) => plan.taxii === 'all')
    .map(([name]) => name);
}
