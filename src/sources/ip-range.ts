// The address blocks that hold an address, in the form pulls store blocks (normalize-value.ts): the
// lookup's block match, `why`'s blocks, an indicator's links and explore's `ioc=` all ask the
// store for these names on its (value, type) index rather than scanning ranges.
import type { NetworkRange } from '../store/contract/explore.js';
import { formatIpBlock, type IpBlock } from './normalize-value.js';

/**
 * The stored forms of every block that contains `address`, widest to narrowest: `/0` to `/31` for
 * IPv4 (32 names), `/0` to `/127` for IPv6 (128). For a block, the same up to its own prefix (the
 * wider blocks holding it). Host bits are masked as a pull masks them, so `157.59.90.0/23` is a name
 * here exactly when a pull stored it so.
 */
export function containingBlocks(address: IpBlock): string[] {
  const blocks: string[] = [];
  for (let prefix = 0; prefix < address.prefix; prefix += 1) {
    const width = address.family === 4 ? 32 : 128;
    const hostMask = (1n << BigInt(width - prefix)) - 1n;
    blocks.push(formatIpBlock({ family: address.family, bits: address.bits & ~hostMask, prefix }));
  }
  return blocks;
}

/** The prefix length of a stored block name (`157.59.90.0/23`: 23), or the full width for a bare address. */
export function prefixOf(value: string): number {
  const slash = value.lastIndexOf('/');
  if (slash >= 0) return Number(value.slice(slash + 1));
  return value.includes(':') ? 128 : 32;
}

/**
 * The first and last address of a block as the store keys blocks (indicator_networks) and explore
 * compares ranges (NetworkRange): the family digit, then the address as fixed-width lowercase hex
 * (8 digits for IPv4, 32 for IPv6). Text of one width per family compares as the addresses do, so
 * "inside a block" is comparisons an index on (lo, hi) answers.
 */
export function rangeOf(block: IpBlock): NetworkRange {
  const width = block.family === 4 ? 32 : 128;
  const digits = width / 4;
  const hostBits = (1n << BigInt(width - block.prefix)) - 1n;
  const hex = (bits: bigint) => `${block.family}${bits.toString(16).padStart(digits, '0')}`;
  return { lo: hex(block.bits), hi: hex(block.bits | hostBits) };
}
