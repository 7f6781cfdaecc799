import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

// Key shape, as GitHub tokens: a fixed prefix, 30 random base62 characters and 6 base62
// characters of CRC32 over the random part. Secret scanners can recognise a leaked key offline,
// and the server rejects a mistyped or made-up key before touching the database.

export const KEY_PREFIX = 'cra_';
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LENGTH = 30;
const CHECKSUM_LENGTH = 6;
const KEY_PATTERN = /^cra_[0-9A-Za-z]{36}$/;

export function toBase62(value: number, width: number): string {
  let out = '';
  let n = value;
  do {
    out = ALPHABET[n % 62]! + out;
    n = Math.floor(n / 62);
  } while (n > 0);
  return out.padStart(width, '0');
}

export function checksumOf(randomPart: string): string {
  return toBase62(crc32(randomPart), CHECKSUM_LENGTH);
}

function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // 248 = 4 × 62: rejecting the top bytes keeps every character equally likely.
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

export function generateKey(): string {
  const random = randomBase62(RANDOM_LENGTH);
  return KEY_PREFIX + random + checksumOf(random);
}

/** True when the string has the key's shape and a matching checksum. */
export function isWellFormedKey(key: string): boolean {
  if (!KEY_PATTERN.test(key)) return false;
  const random = key.slice(KEY_PREFIX.length, KEY_PREFIX.length + RANDOM_LENGTH);
  return checksumOf(random) === key.slice(KEY_PREFIX.length + RANDOM_LENGTH);
}

/** What is stored instead of the secret. */
export function digestKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** Shown in listings so an administrator can tell keys apart; reveals 8 of 30 random characters. */
export function displayPrefix(key: string): string {
  return key.slice(0, KEY_PREFIX.length + 8);
}
