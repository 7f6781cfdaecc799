import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { crc32 } from 'node:zlib';
import { checksumOf, digestKey, displayPrefix, generateKey, isWellFormedKey, toBase62 } from '../../src/keys/key-format.js';

describe('API key format', () => {
  it('is cra_ + 30 base62 + 6 base62 checksum characters', () => {
    for (let i = 0; i < 200; i++) {
      const key = generateKey();
      assert.match(key, /^cra_[0-9A-Za-z]{36}$/);
      assert.ok(isWellFormedKey(key));
    }
  });

  it('the checksum is CRC32 of the random part in 6 base62 digits', () => {
    const key = generateKey();
    const random = key.slice(4, 34);
    const expected = toBase62(crc32(random), 6);
    assert.equal(key.slice(34), expected);
    assert.equal(checksumOf(random), expected);
  });

  it('base62 encodes known values with zero padding', () => {
    assert.equal(toBase62(0, 6), '000000');
    assert.equal(toBase62(61, 6), '00000z');
    assert.equal(toBase62(62, 6), '000010');
    assert.equal(toBase62(0xffffffff, 6), '4gfFC3');
  });

  it('rejects a wrong checksum, a wrong prefix, wrong length and foreign characters', () => {
    const key = generateKey();
    const last = key.at(-1)!;
    assert.equal(isWellFormedKey(key.slice(0, -1) + (last === '0' ? '1' : '0')), false);
    assert.equal(isWellFormedKey(`crb_${key.slice(4)}`), false);
    assert.equal(isWellFormedKey(key.slice(0, -1)), false);
    assert.equal(isWellFormedKey(`${key}0`), false);
    assert.equal(isWellFormedKey(`${key.slice(0, 10)}-${key.slice(11)}`), false);
    assert.equal(isWellFormedKey(''), false);
  });

  it('a changed random character breaks the checksum (offline leak detection works)', () => {
    const key = generateKey();
    let caught = 0;
    for (let i = 4; i < 34; i++) {
      const swapped = key[i] === 'a' ? 'b' : 'a';
      if (!isWellFormedKey(key.slice(0, i) + swapped + key.slice(i + 1))) caught++;
    }
    assert.equal(caught, 30);
  });

  it('stores a SHA-256 digest and shows only a short prefix', () => {
    const key = generateKey();
    assert.match(digestKey(key), /^[0-9a-f]{64}$/);
    assert.notEqual(digestKey(key), digestKey(generateKey()));
    assert.equal(displayPrefix(key), key.slice(0, 12));
  });
});
