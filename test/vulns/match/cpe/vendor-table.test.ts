import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VENDOR_TABLE_ROWS } from '../../../../src/vulns/match/cpe/vendor-table-data.js';
import { knownProductNames, lookupProduct, normaliseProductName, partOfPair } from '../../../../src/vulns/match/cpe/vendor-table.js';

const pairs = (name: string): string[] | null => lookupProduct(name)?.pairs.map((p) => `${p.vendor}:${p.product}`) ?? null;

describe('the vendor table', () => {
  it("maps the spec's examples", () => {
    assert.deepEqual(pairs('curl'), ['haxx:curl', 'haxx:libcurl']);
    assert.deepEqual(pairs('libcurl'), ['haxx:libcurl']);
    assert.deepEqual(pairs('zlib'), ['zlib:zlib', 'gnu:zlib']);
    assert.deepEqual(pairs('linux_kernel'), ['linux:linux_kernel']);
    assert.equal(lookupProduct('linux_kernel')?.part, 'o');
    assert.deepEqual(pairs('u-boot'), ['denx:u-boot']);
    assert.deepEqual(pairs('dropbear_ssh'), ['dropbear_ssh_project:dropbear_ssh']);
    assert.deepEqual(pairs('openssl'), ['openssl:openssl']);
    assert.deepEqual(pairs('busybox'), ['busybox:busybox']);
    assert.deepEqual(pairs('dnsmasq'), ['thekelleys:dnsmasq']);
  });

  it('looks names up normalised: linux-kernel is linux_kernel, U_Boot is u-boot', () => {
    assert.deepEqual(pairs('linux-kernel'), ['linux:linux_kernel']);
    assert.deepEqual(pairs(' U_Boot '), ['denx:u-boot']);
    assert.equal(normaliseProductName('Net-SNMP'), 'net_snmp');
  });

  it('knows nothing it was not told, and is never a wildcard', () => {
    assert.equal(lookupProduct('acme-router-daemon'), null);
    assert.equal(lookupProduct('*'), null);
    assert.equal(lookupProduct(''), null);
    for (const name of knownProductNames()) {
      const entry = lookupProduct(name)!;
      assert.ok(entry.pairs.length > 0, name);
      for (const { vendor, product } of entry.pairs)
        assert.match(`${vendor}:${product}`, /^[a-z0-9][a-z0-9_.+-]*:[a-z0-9][a-z0-9_.+-]*$/, name);
    }
  });

  it('names where every entry comes from: a Buildroot package or an OpenEmbedded-Core recipe', () => {
    for (const name of knownProductNames())
      for (const source of lookupProduct(name)!.sources)
        assert.match(source, /^(buildroot (package|boot|linux)\/|openembedded-core meta\/)/, name);
    assert.ok(knownProductNames().length >= 100 && knownProductNames().length <= 200, `${knownProductNames().length} entries`);
  });

  it('holds each name once once normalised', () => {
    const raw = Object.keys(VENDOR_TABLE_ROWS);
    assert.equal(new Set(raw.map(normaliseProductName)).size, raw.length);
  });

  it("gives a known pair's part", () => {
    assert.equal(partOfPair('linux', 'linux_kernel'), 'o');
    assert.equal(partOfPair('Haxx', 'libcurl'), 'a');
    assert.equal(partOfPair('acme', 'libcurl'), null);
  });
});
