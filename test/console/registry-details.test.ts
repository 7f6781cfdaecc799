import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeEntry, shortTime } from '../../src/console/registry-details.js';

// The Activity page's and a case's History's Details column: each entry in words, the raw JSON
// beside it. One formatter per action, a generic one for the rest and for older entries.

const AT = '2026-11-25T10:30:00.000Z';
const words = (action: string, details: unknown) => describeEntry({ action, details: JSON.stringify(details), at: AT }).text;

describe('registry entries in words', () => {
  it('writes times short, UTC, the year only when it is not the entry’s', () => {
    assert.equal(shortTime('2026-11-25T10:21:36.125Z', AT), '25 Nov 10:21 UTC');
    assert.equal(shortTime('2027-01-02T03:04:00Z', AT), '2 Jan 2027 03:04 UTC');
    assert.equal(shortTime('not a time', AT), 'not a time');
  });

  it('has a formatter for the actions of every feature', () => {
    const cases: Array<[string, unknown, string]> = [
      [
        'disclosure.settings_changed',
        { enabled: true, acknowledge_days: 5, preferred_languages: 'en, de', expires_at: '2027-11-25T10:30:00.000Z', policy_chars: 10 },
        'pages enabled · acknowledge within 5 days · languages en, de · security.txt expires 25 Nov 2027 10:30 UTC',
      ],
      ['disclosure.report_received', { incident_number: 3, attachments: 1, anonymous: true }, '1 attachment · anonymous'],
      ['disclosure.report_received', { incident_number: 3, attachments: 2, anonymous: false }, '2 attachments · reporter named (sealed)'],
      ['disclosure.identity_read', { incident_number: 3 }, "the reporter's name and contact were shown"],
      ['disclosure.message_sent', { incident_number: 3, author: 'reporter' }, 'from the reporter'],
      ['disclosure.message_sent', { incident_number: 3, author: 'team' }, 'to the reporter'],
      ['disclosure.link_revoked', { incident_number: 3 }, "the reporter's follow-up link was revoked"],
      [
        'case.opened',
        {
          incident_number: 4,
          kind: 'vulnerability',
          notifiable: true,
          notifiable_reason: null,
          aware_at: '2026-11-25T10:21:00.000Z',
          product_sku: null,
        },
        'aware at 25 Nov 10:21 UTC · vulnerability · notifiable',
      ],
      [
        'case.opened',
        { incident_number: 5, kind: 'incident', notifiable: false, notifiable_reason: 'no impact', aware_at: AT, product_sku: 'RTR-1' },
        'aware at 25 Nov 10:30 UTC · incident · not notifiable: no impact · product RTR-1',
      ],
      [
        'case.report_filed',
        {
          incident_number: 4,
          stage: 'intermediate',
          seq: 2,
          filed_at: AT,
          srp_reference: 'SRP-9',
          filed_by: 'user:a@example.com',
          due: AT,
          on_time: true,
          catalogue_version: 1,
          content_sha256: 'ab'.repeat(32),
        },
        'intermediate report 2 filed at 25 Nov 10:30 UTC · on time · SRP SRP-9 · sha256 abababababab…',
      ],
      [
        'case.early_warning_recorded',
        { incident_number: 4, sent_at: AT, deadline: AT, on_time: false, without_content: true, note: 'x' },
        'early warning sent at 25 Nov 10:30 UTC · late · without report content',
      ],
      ['case.note_added', { incident_number: 4, characters: 120 }, 'a note of 120 characters (the text is confidential)'],
      ['case.closed', { incident_number: 4, early_warning_sent: true, notification_sent: false }, 'early warning sent · no notification'],
      ['signal.received', { incident_number: 1, product_sku: null, cve: null, intake_mode: 'signal' }, 'no product matched'],
      ['signal.merged', { incident_number: 6, merged_into: 4, cve: 'CVE-2026-1' }, 'into case 4 · CVE-2026-1'],
      ['signal.attributed', { incident_number: 6, product_sku: 'B', previous_product_sku: 'A' }, 'product B · was A'],
      [
        'sbom.ingested',
        { sbom_id: 'x', format: 'spdx', spec_version: '2.3', release: '1.0', revision: 2, components: 9, digest: 'cd'.repeat(32) },
        'release 1.0, revision 2 · 9 components · SPDX 2.3 · sha256 cdcdcdcdcdcd…',
      ],
      [
        'key.rotated',
        { prefix: 'cra_new', previous_prefix: 'cra_old', grace_until: null },
        'prefix cra_new (was cra_old) · the old secret ended at once',
      ],
      ['member.role_changed', { from: 'viewer', to: 'admin' }, 'viewer → admin'],
      [
        'product.added',
        {
          sku: 'R',
          name: 'Router',
          gtin: '04006381333931',
          gtin_declared: '4006381333931',
          firmware_version: '2.4.1',
          end_of_support: '2030-12-31T00:00:00.000Z',
          markets: '["DE","FR"]',
        },
        'Router · firmware 2.4.1 · GTIN 4006381333931 · end of support 31 Dec 2030 00:00 UTC · markets DE, FR',
      ],
    ];
    for (const [action, details, text] of cases) assert.equal(words(action, details), text, action);
  });

  it('speaks generically for other actions and for entries whose details are older than their formatter', () => {
    assert.equal(
      words('org.details_changed', { legal_name: 'Acme GmbH', member_state: 'DE', verified: true, archived: false, at: AT }),
      'legal name Acme GmbH · member state DE · verified · not archived · at 25 Nov 10:30 UTC',
    );
    // A product added before GTINs were kept as declared (008): no gtin_declared.
    assert.equal(words('product.added', { sku: 'R', name: 'Router', gtin: null }), 'sku R · name Router');
    assert.equal(words('product.updated', {}), '—');
    assert.equal(describeEntry({ action: 'x', details: 'not json', at: AT }).text, 'not json');
  });

  it('keeps the raw JSON laid out for reading', () => {
    assert.equal(describeEntry({ action: 'user.joined', details: '{"role":"owner"}', at: AT }).json, '{\n  "role": "owner"\n}');
  });
});
