// Plan rules (docs/interface.md section 8): plan lookup, the anonymous client, "pages per request", TAXII plans; direct and table-driven.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { ForbiddenError } from '../../src/errors.js';
import { ANONYMOUS_PLAN, anonymousClient, assertPageAllowed, planNamed, taxiiPlanNames, type Client } from '../../src/plans/plan-rules.js';

const config = loadConfig();

function clientOf(planName: string): Client {
  const plan = planNamed(config, planName);
  assert.ok(plan, `the default configuration defines the ${planName} plan`);
  return { keyId: planName === ANONYMOUS_PLAN ? null : `k_${planName}`, planName, plan };
}

/** The table of docs/interface.md section 8: pages a plan may read, and the first page it is refused. */
const PAGES_PER_REQUEST: [plan: string, pages: number, refusal: string][] = [
  ['anonymous', 1, 'Requests without an API key may read 1 page per request (pages 0 to 0); page 1 is beyond that limit.'],
  ['free', 1, 'The Free plan may read 1 page per request (pages 0 to 0); page 1 is beyond that limit.'],
  ['pro', 2, 'The Pro plan may read 2 pages per request (pages 0 to 1); page 2 is beyond that limit.'],
  ['team', 4, 'The Team plan may read 4 pages per request (pages 0 to 3); page 4 is beyond that limit.'],
  ['business', 10, 'The Business plan may read 10 pages per request (pages 0 to 9); page 10 is beyond that limit.'],
  ['custom', 10, 'The Custom plan may read 10 pages per request (pages 0 to 9); page 10 is beyond that limit.'],
  ['feed', 10, 'The Feed plan may read 10 pages per request (pages 0 to 9); page 10 is beyond that limit.'],
];

describe('planNamed', () => {
  for (const name of ['anonymous', 'free', 'pro', 'team', 'business', 'custom', 'feed']) {
    it(`the configured plan "${name}" › is that plan`, () => {
      assert.equal(planNamed(config, name), config.plans[name]);
    });
  }

  // Plan names come from key records; a name an object inherits must not pass for a plan.
  for (const name of ['enterprise', 'Pro', '', 'constructor', '__proto__', 'toString', 'hasOwnProperty']) {
    it(`the unconfigured name ${JSON.stringify(name)} › is undefined`, () => {
      assert.equal(planNamed(config, name), undefined);
    });
  }

  it('a plan added by configuration › is found by its name', () => {
    const extended = loadConfig({ overrides: { plans: { research: { perSecond: 3, perDay: 30, perMonth: 300, pages: 3, taxii: 'test' } } } });
    assert.deepEqual(planNamed(extended, 'research'), { perSecond: 3, perDay: 30, perMonth: 300, pages: 3, taxii: 'test' });
  });
});

describe('anonymousClient', () => {
  it('is the anonymous plan with no key id (limited by client IP)', () => {
    assert.deepEqual(anonymousClient(config), { keyId: null, planName: 'anonymous', plan: config.plans.anonymous });
    assert.equal(ANONYMOUS_PLAN, 'anonymous');
  });

  it('follows the configured anonymous plan', () => {
    const tighter = loadConfig({ overrides: { plans: { anonymous: { pages: 3, perDay: 7 } } } });
    assert.equal(anonymousClient(tighter).plan.pages, 3);
    assert.equal(anonymousClient(tighter).plan.perDay, 7);
  });
});

describe('assertPageAllowed', () => {
  for (const [plan, pages, refusal] of PAGES_PER_REQUEST) {
    describe(`with the ${plan} plan (${pages} page${pages === 1 ? '' : 's'})`, () => {
      it(`allows pages 0 to ${pages - 1}`, () => {
        assert.equal(config.plans[plan]!.pages, pages, 'the default configuration follows docs/interface.md section 8');
        for (let page = 0; page < pages; page++) assert.doesNotThrow(() => assertPageAllowed(clientOf(plan), page), `page ${page}`);
      });

      it(`refuses page ${pages}, exactly at the limit, with a 403 naming the plan and its limit`, () => {
        assert.throws(
          () => assertPageAllowed(clientOf(plan), pages),
          (error: unknown) => {
            assert.ok(error instanceof ForbiddenError);
            assert.equal(error.status, 403);
            assert.equal(error.code, 'forbidden');
            assert.equal(error.message, refusal);
            return true;
          },
        );
      });

      it('refuses a page far beyond the limit, naming that page', () => {
        assert.throws(() => assertPageAllowed(clientOf(plan), 1_000_000), { name: 'ForbiddenError', message: /; page 1000000 is beyond that limit\.$/ });
      });
    });
  }

  it('with a plan name of the configuration › capitalises the name in the message', () => {
    const client: Client = { keyId: 'k_1', planName: 'research', plan: { perSecond: 1, perDay: 1, perMonth: 1, pages: 3, taxii: 'none' } };
    assert.doesNotThrow(() => assertPageAllowed(client, 2));
    assert.throws(() => assertPageAllowed(client, 3), { message: 'The Research plan may read 3 pages per request (pages 0 to 2); page 3 is beyond that limit.' });
  });
});

describe('taxiiPlanNames', () => {
  const CASES: [condition: string, overrides: unknown, names: string[]][] = [
    ['the default plans', undefined, ['pro', 'feed']],
    ['Custom configured for TAXII', { plans: { custom: { taxii: 'all' } } }, ['pro', 'custom', 'feed']],
    ['Free given the whole export', { plans: { free: { taxii: 'all' } } }, ['free', 'pro', 'feed']],
    ['no plan with the whole export', { plans: { pro: { taxii: 'test' }, feed: { taxii: 'none' } } }, []],
  ];
  for (const [condition, overrides, names] of CASES) {
    it(`with ${condition} › lists ${JSON.stringify(names)} in configuration order, leaving out test-only plans`, () => {
      assert.deepEqual(taxiiPlanNames(overrides === undefined ? config : loadConfig({ overrides })), names);
    });
  }
});
