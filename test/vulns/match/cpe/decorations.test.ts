import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readComponentVersion, versionAgainst } from '../../../../src/vulns/match/cpe/decorations.js';
import { compareUpstream } from '../../../../src/vulns/match/cpe/upstream-version.js';

/** What a component version compares as against a criterion's version, and what was taken off. */
function against(component: string, criterion: string) {
  return versionAgainst(readComponentVersion(component), criterion);
}

describe("a component version's build decorations", () => {
  it('strips an epoch and a Debian revision and records both: 7:5.1.6-1~deb12u1 compares as 5.1.6', () => {
    assert.deepEqual(against('7:5.1.6-1~deb12u1', '5.1.6'), { compared: '5.1.6', stripped: ['7:', '-1~deb12u1'] });
    assert.equal(compareUpstream(against('7:5.1.6-1~deb12u1', '5.1.6').compared, '5.1.6'), 0);
  });

  it("strips Yocto's -rN and +git…", () => {
    assert.deepEqual(against('1.36.1-r0', '1.36.1'), { compared: '1.36.1', stripped: ['-r0'] });
    assert.deepEqual(against('2023.10+gitAUTOINC+4a5bc3d-r0', '2023.10'), {
      compared: '2023.10',
      stripped: ['-r0', '+gitAUTOINC+4a5bc3d'],
    });
  });

  it('strips a Debian or Ubuntu revision when a marker says it is one', () => {
    assert.equal(against('2.86-1ubuntu0.1', '2.86').compared, '2.86');
    assert.equal(against('1.2.11.dfsg-2+deb11u2', '1.2.11').compared, '1.2.11');
    assert.deepEqual(against('1:1.2.13.dfsg-1', '1.2.13'), { compared: '1.2.13', stripped: ['1:', '-1', '.dfsg'] });
  });

  it('strips ~…, but reads ~rc1 as the pre-release Debian means by it', () => {
    assert.deepEqual(against('1.2.3~bpo11+1', '1.2.3'), { compared: '1.2.3', stripped: ['~bpo11+1'] });
    const rc = against('1.0~rc1-1', '1.0');
    assert.equal(rc.compared, '1.0-rc1');
    assert.equal(compareUpstream(rc.compared, '1.0'), -1);
  });

  it("drops a bare -N (OpenWrt's 1.36.1-1) unless the criterion's version carries a -", () => {
    assert.deepEqual(against('1.36.1-1', '1.36.1'), { compared: '1.36.1', stripped: ['-1'] });
    assert.deepEqual(against('0.8-5', '0.8-5'), { compared: '0.8-5', stripped: [] });
    assert.equal(compareUpstream(against('0.8-5', '0.8-5').compared, '0.8-5'), 0);
    assert.equal(compareUpstream(against('0.8-4', '0.8-5').compared, '0.8-5'), -1);
  });

  it('keeps a pre-release, which is part of the version, not a decoration', () => {
    assert.deepEqual(against('2.6.39-rc1-r0', '2.6.39'), { compared: '2.6.39-rc1', stripped: ['-r0'] });
    assert.deepEqual(against('2023.10-rc4', '2023.10'), { compared: '2023.10-rc4', stripped: [] });
  });

  it("strips a git tag's v", () => assert.deepEqual(against('v2023.10', '2023.10'), { compared: '2023.10', stripped: ['v'] }));

  it('leaves alone what it does not know, which the order then cannot read', () => {
    assert.equal(against('1.0+really0.9', '1.0').compared, '1.0+really0.9');
    assert.equal(compareUpstream(against('1.0+really0.9', '1.0').compared, '1.0'), 'unknown');
  });
});
