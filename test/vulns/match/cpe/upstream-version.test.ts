import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compareUpstream, readUpstream, withUpdate } from '../../../../src/vulns/match/cpe/upstream-version.js';
import { readFirmwareFixture } from './vectors.js';

/** Asserts each version sorts strictly before every later one. */
function assertAscending(versions: string[]): void {
  versions.forEach((a, i) => {
    for (const b of versions.slice(i + 1)) {
      assert.equal(compareUpstream(a, b), -1, `${a} < ${b}`);
      assert.equal(compareUpstream(b, a), 1, `${b} > ${a}`);
    }
  });
}

describe('the upstream order, as firmware.md writes it', () => {
  it('compares numeric runs as numbers', () => assertAscending(['1.9', '1.10', '1.10.1', '2.0']));

  it('orders OpenSSL letters after their release, and before the next one', () => {
    assertAscending(['1.0.2', '1.0.2a', '1.0.2z', '1.0.2za', '1.0.2zg', '1.1.1', '1.1.1w', '3.0.0']);
  });

  it('puts alpha, beta, pre and rc before their release', () => {
    assertAscending(['2.6.39-rc1', '2.6.39-rc7', '2.6.39']);
    assertAscending(['2023.10-rc4', '2023.10']);
    assertAscending(['3.0.0-alpha1', '3.0.0-alpha17', '3.0.0-beta1', '3.0.0-beta2', '3.0.0']);
    assertAscending(['1.0-pre', '1.0-rc1', '1.0']);
  });

  it('puts the p and pl patch levels after their release', () => {
    assertAscending(['9.3', '9.3p1', '9.3p2', '9.4']);
    assert.equal(compareUpstream('9.3pl1', '9.3p1'), 0);
  });

  it('reads the CPE update field with the version', () => {
    assert.equal(compareUpstream(withUpdate('9.3', 'p1'), '9.3p1'), 0);
    assertAscending([withUpdate('1.0.2', 'beta2'), '1.0.2']);
    assert.equal(withUpdate('1.0.2', null), '1.0.2');
  });

  it('reads date versions', () => assertAscending(['2020.81', '2022.82', '2022.83', '2024.84']));

  it('takes missing numeric segments as zero', () => {
    assert.equal(compareUpstream('6.1', '6.1.0'), 0);
    assert.equal(compareUpstream('1.0', '1.0.0'), 0);
    assertAscending(['6.1.0-rc3', '6.1']);
  });

  it('compares as unknown what it cannot read, never guessing', () => {
    for (const v of ['', 'latest', 'v1.0', '1.0+git', '1.0~rc1', '1.0-snapshot', '5.1.23a1', 'V100R001C01B016', '1..2', '1.2.'])
      assert.equal(readUpstream(v), null, v);
    assert.equal(compareUpstream('1.0', 'latest'), 'unknown');
    assert.equal(compareUpstream('1.0-snapshot', '1.0'), 'unknown');
  });
});

interface History {
  project: string;
  source: { repository: string; commit: string };
  leftOut: { tag?: string; why: string }[];
  releases: { version: string }[];
}

describe("the upstream order against each project's own release history", () => {
  const projects = ['openssl', 'busybox', 'linux', 'curl', 'dnsmasq', 'dropbear', 'u-boot', 'openssh', 'zlib'];
  for (const project of projects) {
    const history = readFirmwareFixture<History>('versions', `${project}.json`);
    const versions = history.releases.map((r) => r.version);
    it(`reads every ${project} release and sorts the ${versions.length} of them as they were released`, () => {
      assert.deepEqual(
        versions.filter((v) => readUpstream(v) === null),
        [],
      );
      const wrong = versions.slice(1).flatMap((b, i) => (compareUpstream(versions[i]!, b) === -1 ? [] : [`${versions[i]} then ${b}`]));
      assert.deepEqual(wrong, []);
    });
  }

  it('names each release it leaves out, with the reason', () => {
    const left = projects.flatMap((p) => readFirmwareFixture<History>('versions', `${p}.json`).leftOut);
    for (const entry of left) assert.ok(entry.why.length > 20, JSON.stringify(entry));
    // busybox renumbered after 1.01: 1.01 and 1.1.0 are the same version to an order of numbers
    assert.equal(compareUpstream('1.01', '1.1.0'), 0);
  });
});
