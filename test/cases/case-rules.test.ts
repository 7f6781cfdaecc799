import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { caseDeadlines, caseTitle } from '../../src/cases/case-rules.js';

describe('case deadlines', () => {
  it('are awareness + 24 h and + 72 h, to the millisecond, in UTC', () => {
    const { earlyWarning, fullNotification } = caseDeadlines(new Date('2026-03-28T23:30:15.123+01:00'));
    assert.equal(earlyWarning.toISOString(), '2026-03-29T22:30:15.123Z');
    assert.equal(fullNotification.toISOString(), '2026-03-31T22:30:15.123Z');
  });

  it('do not follow daylight-saving changes: 24 h are 86 400 000 ms', () => {
    const aware = new Date('2026-10-24T12:00:00.000Z');
    const { earlyWarning, fullNotification } = caseDeadlines(aware);
    assert.equal(earlyWarning.getTime() - aware.getTime(), 86_400_000);
    assert.equal(fullNotification.getTime() - aware.getTime(), 259_200_000);
  });
});

describe('case title', () => {
  it('prefers the given title, trimmed', () => {
    assert.equal(caseTitle('  Router RCE ', 'whatever'), 'Router RCE');
  });

  it('else takes the first non-blank line of the description', () => {
    assert.equal(caseTitle(null, '\n  \r\n  Buffer overflow in httpd  \nsecond line'), 'Buffer overflow in httpd');
    assert.equal(caseTitle('   ', 'only line'), 'only line');
  });

  it('cuts at 120 characters without splitting a character', () => {
    assert.equal(caseTitle(null, 'x'.repeat(300)), 'x'.repeat(120));
    const emoji = caseTitle(null, '🔥'.repeat(130));
    assert.equal(Array.from(emoji).length, 120);
    assert.equal(emoji, '🔥'.repeat(120));
  });
});
