import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addressGroup } from '../../../src/http/rate-limit/address-group.js';

// An IPv6 client counts by its /64 (the block one subscriber may rotate through), an IPv4 one by itself.

describe('addressGroup', () => {
  it('gives every address of one IPv6 /64 the same group, however it is written', () => {
    const group = '2001:db8:1:2::/64';
    for (const address of [
      '2001:db8:1:2::1',
      '2001:0db8:0001:0002:ffff:ffff:ffff:ffff',
      '2001:DB8:1:2:a:b:c:d',
      '2001:db8:1:2::192.0.2.1',
      'fe80::1%eth0'.replace('fe80::1', '2001:db8:1:2::7'),
    ])
      assert.equal(addressGroup(address), group, address);
    assert.equal(addressGroup('2001:db8:1:3::1'), '2001:db8:1:3::/64', 'the next /64 is another client');
    assert.equal(addressGroup('::1'), '0:0:0:0::/64');
    assert.equal(addressGroup('2001:db8::'), '2001:db8:0:0::/64');
    assert.equal(addressGroup('fe80::1%eth0'), 'fe80:0:0:0::/64');
  });

  it('keeps an IPv4 address, also one mapped into IPv6, as it is', () => {
    assert.equal(addressGroup('192.0.2.7'), '192.0.2.7');
    assert.equal(addressGroup('::ffff:192.0.2.7'), '192.0.2.7');
    assert.equal(addressGroup('::ffff:c000:207'), '192.0.2.7');
  });

  it('leaves anything else alone', () => {
    assert.equal(addressGroup('unknown'), 'unknown');
    assert.equal(addressGroup(''), '');
  });
});
