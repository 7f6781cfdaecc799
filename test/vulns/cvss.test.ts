import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CVSS_MEMO_SIZE, cvssBaseScore, highestCvss, rememberedVectors } from '../../src/vulns/cvss.js';

// Base scores from the vector (FIRST's calculators give the same), never from a feed's number.

describe('CVSS base scores', () => {
  it('scores v3.0, v3.1 and v4.0 vectors as FIRST does', () => {
    assert.equal(cvssBaseScore('CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H')?.score, 9.8);
    assert.equal(cvssBaseScore('CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:H')?.score, 9.1);
    assert.equal(cvssBaseScore('CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N')?.score, 6.1);
    assert.equal(cvssBaseScore('CVSS:3.0/AV:L/AC:L/PR:L/UI:N/S:U/C:H/I:H/A:H')?.score, 7.8);
    assert.equal(cvssBaseScore('CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N')?.score, 9.3);
  });

  it('gives none for what is not a v3 or v4 vector', () => {
    for (const vector of ['AV:N/AC:L/Au:N/C:P/I:P/A:P', 'CVSS:3.1/AV:X', 'CVSS:3.1/AV:N <script>', `CVSS:3.1/${'AV:N/'.repeat(200)}`, '']) {
      assert.equal(cvssBaseScore(vector), null, vector);
    }
  });

  it('takes the highest of the CVSS entries of an OSV severity list, ignoring other types', () => {
    const best = highestCvss([
      { type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N' },
      { type: 'Ubuntu', score: 'high' },
      { type: 'CVSS_V4', score: 'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N' },
    ]);
    assert.deepEqual(best, { score: 9.3, vector: 'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N' });
    assert.equal(highestCvss([{ type: 'CVSS_V2', score: 'AV:N/AC:L/Au:N/C:P/I:P/A:P' }]), null);
  });

  it('computes a vector once while it is remembered, and stays right once the memo is full', () => {
    const vector = 'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:H/A:H';
    const first = cvssBaseScore(vector);
    assert.equal(cvssBaseScore(vector), first, 'the same (frozen) answer, not computed again');
    assert.ok(Object.isFrozen(first));
    for (let i = 0; i <= CVSS_MEMO_SIZE; i++) cvssBaseScore(`CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H/E${i}`);
    assert.ok(rememberedVectors() <= CVSS_MEMO_SIZE, 'bounded');
    assert.deepEqual(cvssBaseScore(vector), { score: 8.1, vector });
  });

  it('remembers nothing of what cannot be a vector (a feed could send megabytes of it)', () => {
    const before = rememberedVectors();
    for (let i = 0; i < 100; i++) {
      assert.equal(cvssBaseScore(`CVSS:3.1/AV:N/${'AC:L/'.repeat(200)}${i}`), null, 'too long');
      assert.equal(cvssBaseScore(`CVSS:3.1/AV:N/AC:L <${i}>`), null, 'not the alphabet of a vector');
      assert.equal(cvssBaseScore(`CVSS:2.0/AV:N/${i}`), null, 'no version scored');
    }
    assert.equal(rememberedVectors(), before);
  });
});
