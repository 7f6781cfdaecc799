import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resolveComponentCpes } from '../../../../src/vulns/match/cpe/component-cpes.js';

const resolve = (cpes: string[], version: string | null = null, source: 'sbom' | 'mapping' = 'sbom') =>
  resolveComponentCpes({ name: 'x', version, cpes: cpes.map((cpe) => ({ cpe, source })) });

describe("which CPE a component is matched by (firmware.md, 'Which CPE a component has')", () => {
  it('takes an SBOM CPE as given, exact; a confirmed mapping as confirmed', () => {
    const sbom = resolve(['cpe:2.3:a:busybox:busybox:1.36.1:*:*:*:*:*:*:*']);
    assert.deepEqual(
      sbom.identities.map((i) => [i.cpe, i.source, i.confidence]),
      [['cpe:2.3:a:busybox:busybox:1.36.1:*:*:*:*:*:*:*', 'sbom', 'exact']],
    );
    const mapped = resolve(['cpe:2.3:a:busybox:busybox:*:*:*:*:*:*:*:*'], '1.36.1', 'mapping');
    assert.deepEqual([mapped.identities[0]!.source, mapped.identities[0]!.confidence], ['mapping', 'confirmed']);
  });

  it('fills a * vendor from the vendor table, one identity per pair, inferred', () => {
    const curl = resolve(['cpe:2.3:*:*:curl:8.3.0:*:*:*:*:*:*:*']);
    assert.deepEqual(
      curl.identities.map((i) => [i.cpe, i.source, i.confidence]),
      [
        ['cpe:2.3:a:haxx:curl:8.3.0:*:*:*:*:*:*:*', 'vendor_table', 'inferred'],
        ['cpe:2.3:a:haxx:libcurl:8.3.0:*:*:*:*:*:*:*', 'vendor_table', 'inferred'],
      ],
    );
    assert.equal(
      resolve(['cpe:2.3:*:*:linux_kernel:6.1.38:*:*:*:*:*:*:*']).identities[0]!.cpe,
      'cpe:2.3:o:linux:linux_kernel:6.1.38:*:*:*:*:*:*:*',
    );
  });

  it('infers only the part of a CPE that gives vendor and product, and stays exact', () => {
    const [known] = resolve(['cpe:2.3:*:thekelleys:dnsmasq:2.84:*:*:*:*:*:*:*']).identities;
    assert.deepEqual(
      [known!.cpe, known!.source, known!.confidence, known!.partFromCriterion],
      ['cpe:2.3:a:thekelleys:dnsmasq:2.84:*:*:*:*:*:*:*', 'sbom', 'exact', false],
    );
    const [unknown] = resolve(['cpe:2.3:*:acme:widget:1.0:*:*:*:*:*:*:*']).identities;
    assert.equal(unknown!.partFromCriterion, true);
  });

  it('names why a CPE cannot be used, never guessing', () => {
    assert.equal(resolve(['cpe:2.3:*:*:acme-router-daemon:1.0:*:*:*:*:*:*:*']).notMatchable, 'cpe_vendor_unknown');
    assert.equal(resolve(['cpe:2.3:a:*:*:1.0:*:*:*:*:*:*:*']).notMatchable, 'cpe_invalid');
    assert.equal(resolve(['cpe:2.3:a:busy*box:busybox:1.0']).notMatchable, 'cpe_invalid');
    assert.equal(resolve(['not a cpe']).problems[0]!.detail, 'not a CPE name: it starts with neither "cpe:2.3:" nor "cpe:/"');
    assert.equal(resolve(['cpe:2.3:a:*:linux_kernel:6.1:*:*:*:*:*:*:*']).notMatchable, 'cpe_vendor_unknown');
  });

  it('needs a version from the CPE or the SBOM, and one the order can read', () => {
    assert.equal(resolve(['cpe:2.3:a:busybox:busybox:*:*:*:*:*:*:*:*']).notMatchable, 'version_missing');
    assert.equal(resolve(['cpe:2.3:a:busybox:busybox:*:*:*:*:*:*:*:*'], '1.36.1').notMatchable, null);
    assert.equal(resolve(['cpe:2.3:a:busybox:busybox:latest:*:*:*:*:*:*:*']).notMatchable, 'version_unparsable');
    assert.equal(resolve(['cpe:2.3:a:busybox:busybox:1.36.1-r0:*:*:*:*:*:*:*']).notMatchable, null);
  });
});
