import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { apkOrder } from '../../../src/vulns/match/orders/apk.js';
import { FIXTURES } from './vectors.js';

// apk-tools' order, against apk-tools' own test/unit/version.data, kept unchanged: lines are
// "a op b" (op <, >, =; the fuzzy ~ operators test `apk version -t` matching, not the order, and
// are skipped), "version" (valid) or "!version" (invalid); "#" starts a comment.
describe('apk order (Alpine)', () => {
  const lines = readFileSync(join(FIXTURES, 'versions', 'apk-version.data'), 'utf8')
    .split('\n')
    .map((line) => line.split('#')[0]!.trim())
    .filter((line) => line !== '');
  const comparisons = lines.map((line) => line.split(/\s+/)).filter((parts) => parts.length === 3 && !parts[1]!.includes('~'));
  const validity = lines.filter((line) => !/\s/.test(line));

  it('compares as version.data says', () => {
    const wrong = comparisons
      .map(([a, op, b]) => ({ line: `${a} ${op} ${b}`, want: op === '<' ? -1 : op === '>' ? 1 : 0, got: apkOrder.compare(a!, b!) }))
      .filter(({ want, got }) => want !== got);
    assert.deepEqual(wrong, []);
    assert.equal(comparisons.length, 738);
  });

  it('tells valid from invalid as version.data says', () => {
    const wrong = validity.filter((line) => apkOrder.valid(line.replace(/^!/, '')) === line.startsWith('!'));
    assert.deepEqual(wrong, []);
    assert.equal(validity.length, 31);
  });
});
