import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { reportState } from '../../src/disclosure/report-state.js';
import { normaliseLanguages, securityTxt } from '../../src/disclosure/security-txt.js';

// The pure parts of disclosure: what the follow-up page says about a report, and security.txt.

const open = { status: 'open' as const, fix_available_at: null, advisory_published_at: null };

describe('the state a reporter sees', () => {
  it('follows triage, then the case', () => {
    assert.equal(reportState('INCOMING', null, false), 'received');
    assert.equal(reportState('INCOMING', null, true), 'triaged');
    assert.equal(reportState('DISMISSED', null, true), 'dismissed');
    assert.equal(reportState('MERGED', null, false), 'triaged');
    assert.equal(reportState('MERGED', open, false), 'triaged');
    assert.equal(reportState('CASE_OPENED', open, false), 'case opened');
    assert.equal(reportState('CASE_OPENED', { ...open, fix_available_at: '2026-12-01T00:00:00.000Z' }, false), 'fixed');
    const published = { ...open, fix_available_at: '2026-12-01T00:00:00.000Z', advisory_published_at: '2026-12-02T00:00:00.000Z' };
    assert.equal(reportState('CASE_OPENED', published, false), 'advisory published');
    assert.equal(reportState('CASE_OPENED', { ...published, status: 'closed' }, false), 'closed');
  });
});

describe('security.txt', () => {
  it('writes the RFC 9116 fields on the pages URL, Expires without milliseconds', () => {
    const text = securityTxt({
      pagesUrl: 'https://cra.example/disclose/acme',
      expiresAt: '2027-11-25T10:00:00.000Z',
      preferredLanguages: 'en, de',
    });
    assert.equal(
      text,
      [
        'Contact: https://cra.example/disclose/acme/report',
        'Expires: 2027-11-25T10:00:00Z',
        'Preferred-Languages: en, de',
        'Canonical: https://cra.example/disclose/acme/security.txt',
        'Policy: https://cra.example/disclose/acme',
        '',
      ].join('\n'),
    );
  });

  it('accepts language tags only', () => {
    assert.equal(normaliseLanguages(' en ,de-AT,fr '), 'en, de-AT, fr');
    assert.equal(normaliseLanguages(''), null);
    assert.equal(normaliseLanguages('en\nContact: evil'), null, 'no injected line');
    assert.equal(normaliseLanguages('english'), null);
  });
});
