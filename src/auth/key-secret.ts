// API key secrets: generation, hashing and constant-time comparison (docs/interface.md section 7).
import crypto, { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** 32 random bytes, base64url: 43 characters, 256 bits. */
const KEY_BYTES = 32;

/** Anything a well-formed key cannot be is refused before hashing (and never looked up). */
const KEY_SHAPE = /^[A-Za-z0-9_-]{16,256}$/;

/**
 * A new key. One whose text would begin with `-` is drawn again: pasted into a command line
 * (`threatgate keys revoke KEY`) it would read as an option. The other 63 first characters stay
 * equally likely, and the rest of the key is untouched by the choice.
 */
export function generateKey(): string {
  for (;;) {
    const key = randomBytes(KEY_BYTES).toString('base64url');
    if (key[0] !== '-') return key;
  }
}

/** Node's one-shot digest (Node 20.12 and later): every request with a key hashes it, and this skips building a Hash object. */
const oneShotHash = (crypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash;

export function hashKey(key: string): string {
  return oneShotHash ? oneShotHash('sha256', key, 'hex') : createHash('sha256').update(key, 'utf8').digest('hex');
}

export function isWellFormedKey(key: string): boolean {
  return KEY_SHAPE.test(key);
}

/** Constant-time equality of two hex digests of equal length. */
export function hashesEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}

/** A short public id for listing and revoking, derived from nothing secret. */
export function generateKeyId(): string {
  return `k_${randomBytes(6).toString('hex')}`;
}
