// The stored blocks that hold an address or a narrower block (docs/lookup-api.md, "An address inside a listed
// block"): the indicator lookup answers an unlisted address with the narrowest active one, and `why`,
// the console and an indicator's links list them all.
import type { IndicatorType } from '../indicator-types.js';
import type { IndicatorRef, Store } from '../store/contract/store.js';
import { storedTypesOf } from './indicator-value.js';
import { containingBlocks, prefixOf } from './ip-range.js';
import { parseIpBlock } from './normalize-value.js';

/**
 * Every stored block holding `value` (a normalized address or block of `type` ip or ipv6),
 * narrowest first, then newest; empty for a value of any other type. One query: the block names are
 * computed (ip-range.ts) and looked up on the (value, type) index, under the types a pull or an
 * import stores addresses under.
 */
export async function storedBlocksHolding(store: Store, value: string, type: IndicatorType): Promise<IndicatorRef[]> {
  if (type !== 'ip' && type !== 'ipv6') return [];
  const block = parseIpBlock(value, type === 'ip' ? 4 : 6);
  if (block === undefined) return [];
  const found = await store.findIndicatorsByValues(containingBlocks(block), storedTypesOf(type));
  return found.sort((a, b) => prefixOf(b.indicator) - prefixOf(a.indicator) || b.iid - a.iid);
}

/** Whether `value` of `type` is one address (not a block), the only value a block can answer for. */
export function isSingleAddress(value: string, type: IndicatorType): boolean {
  return (type === 'ip' || type === 'ipv6') && !value.includes('/');
}
