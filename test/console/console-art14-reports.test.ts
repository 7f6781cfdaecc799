import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { useHarness } from '../helpers/app.js';
import { alertText, facts, fieldError, one, parseHtml, text } from '../helpers/html.js';
import { AWARE_AT, draftOf, fileStage, openVulnerability, registry, routerOrganisation, stages } from './art14-cases.js';

// A case's Article 14 stages and their report forms in the console, over HTTP as a browser
// without JavaScript: the stages with their clocks, each report's draft pre-filled and checked
// field by field, filing and the frozen report, the plain-text download. Each test builds its
// own organisation and brings its case to the stage it needs (art14-cases.ts). The clock starts
// at 2026-11-22T10:00:30Z; the case's awareness time is 2026-11-20T10:00Z. The measures, the
// clocks on Today, the exports, notes and closing: console-art14-measures.test.ts.

describe('console Article 14: stages and their reports', () => {
  const harness = useHarness();

  it('lists each stage with its due time, its clock (red once overdue) and its state, refreshed in place', async () => {
    const h = harness();
    const { agent, base } = await routerOrganisation(h, 'stages');
    await openVulnerability(h, 'stages');
    const page = await agent.get(`${base}/cases/1`);
    const doc = parseHtml(page.body);
    const expected = [
      ['Early warning (24 h)', '2026-11-21 10:00 UTC overdue by 24 h 00 min', 'not yet', 'overdue'],
      ['Vulnerability notification (72 h)', '2026-11-23 10:00 UTC 23 h 59 min left', 'not yet', 'pending'],
      ['Final report (14 days after the corrective measure)', 'no due time yet', 'not yet', 'waiting for a corrective measure'],
    ];
    assert.deepEqual(stages(one(doc, '#deadlines')), expected);
    assert.deepEqual(
      [...doc.querySelectorAll('#deadlines .clock')].map((c) => c.classList.contains('overdue')),
      [true, false],
    );
    const live = one(doc, '#deadlines');
    assert.equal(live.getAttribute('hx-get'), `${base}/cases/1/deadlines`);
    assert.equal(live.getAttribute('hx-trigger'), 'every 30s');
    const fragment = await agent.get(`${base}/cases/1/deadlines`);
    assert.equal(parseHtml(fragment.body).body.firstElementChild?.tagName, 'TABLE', 'the live fragment is the table alone');
    assert.deepEqual(stages(parseHtml(fragment.body)), expected);
  });

  it("pre-fills the early warning from the organisation, the product's markets and releases, and the signal", async () => {
    const h = harness();
    const { agent, base } = await routerOrganisation(h, 'prefill');
    await openVulnerability(h, 'prefill');
    const page = await agent.get(`${base}/cases/1/reports/early-warning`);
    assert.equal(page.statusCode, 200);
    const doc = parseHtml(page.body);
    assert.equal(facts(doc).To, 'the CSIRT designated as coordinator of DE, and ENISA');
    const draft = draftOf(page.body, `${base}/cases/1/reports/early-warning`);
    assert.equal(draft.manufacturer_name, 'Art GmbH');
    assert.equal(draft.markets, 'DE, FR');
    assert.equal(draft.affected_versions, '2.1.0');
    assert.equal(draft.cve_ids, 'CVE-2026-1111');
    assert.equal(draft.title, 'RCE in the web UI');
    assert.equal(draft.kind, 'vulnerability');
    assert.equal(text(one(doc, '#missing')), 'Every required field is filled in: the report can be filed.');
  });

  it('checks each field of a draft beside it, and names the required fields a saved draft still lacks', async () => {
    const h = harness();
    const { agent, base } = await routerOrganisation(h, 'draft');
    await openVulnerability(h, 'draft');
    const action = `${base}/cases/1/reports/early-warning`;
    const draft = draftOf((await agent.get(action)).body, action);
    const invalid = await agent.post(action, { ...draft, manufacturer_contact_email: 'nope', cve_ids: 'CVE-1' });
    assert.equal(invalid.statusCode, 400);
    const errors = parseHtml(invalid.body);
    assert.equal(fieldError(errors, 'manufacturer_contact_email'), '"nope" is not an e-mail address');
    assert.equal(fieldError(errors, 'cve_ids'), 'not CVE-YYYY-NNNN or EUVD-YYYY-NNNN identifiers: CVE-1');
    const cleared = await agent.post(action, { ...draft, summary: '', product_name: '' });
    assert.equal(cleared.statusCode, 303);
    assert.equal(cleared.headers.location, `${action}?saved=1`);
    const saved = parseHtml((await agent.get(`${action}?saved=1`)).body);
    assert.equal(text(one(saved, '[role="status"]')), 'Draft saved.');
    assert.deepEqual(
      [...saved.querySelectorAll('#missing li a')].map((a) => [text(a), a.getAttribute('href')]),
      [
        ['Summary', '#f-summary'],
        ['Product name', '#f-product_name'],
      ],
    );
  });

  it('refuses to file while a required field is missing, before the awareness time, or without the SRP reference', async () => {
    const h = harness();
    const { agent, base } = await routerOrganisation(h, 'refile');
    await openVulnerability(h, 'refile');
    await h.reports.saveDraft('refile', 1, 'early_warning', { summary: '', product_name: '' });
    const file = `${base}/cases/1/reports/early-warning/file`;
    await agent.get(`${base}/cases/1/reports/early-warning`);
    const missing = await agent.post(file, { reference: 'SRP-EW-1', filed_at: '2026-11-21T09:00' });
    assert.equal(missing.statusCode, 400);
    assert.equal(
      text(one(parseHtml(missing.body), '#_file-error')),
      'cannot file the early warning of case 1: missing required fields: summary, product_name',
    );
    await h.reports.saveDraft('refile', 1, 'early_warning', { summary: 'Crafted request runs commands.', product_name: 'Router 9' });
    const early = await agent.post(file, { reference: 'SRP-EW-1', filed_at: '2026-11-20T09:59' });
    assert.equal(early.statusCode, 400);
    assert.equal(
      fieldError(parseHtml(early.body), 'filed_at'),
      `the filing time 2026-11-20T09:59:00.000Z is before the case's awareness time ${AWARE_AT.toISOString()}`,
    );
    const noReference = await agent.post(file, { reference: '', filed_at: '' });
    assert.equal(fieldError(parseHtml(noReference.body), 'reference'), 'Give the reference the SRP gave this report.');
    assert.deepEqual(await registry(h, 'refile', 'case.report_filed'), []);
  });

  it('freezes a filed report with the SHA-256 of its registry entry and of the evidence bundle, and refuses to change it', async () => {
    const h = harness();
    const { agent, base, email } = await routerOrganisation(h, 'frozen');
    await openVulnerability(h, 'frozen');
    const report = `${base}/cases/1/reports/early-warning`;
    const draft = draftOf((await agent.get(report)).body, report);
    const filed = await agent.post(`${report}/file`, { reference: 'SRP-EW-1', filed_at: '2026-11-21T09:00' });
    assert.equal(filed.statusCode, 303);
    assert.equal(filed.headers.location, report);
    const doc = parseHtml((await agent.get(report)).body);
    const sha = text(one(doc, '#content-sha256'));
    assert.match(sha, /^[0-9a-f]{64}$/);
    assert.equal(facts(doc)['Filed by'], `user:${email}`);
    assert.equal(facts(doc).Filed, '2026-11-21 09:00 UTC, SRP reference SRP-EW-1');
    assert.equal(doc.querySelector(`form[action="${report}"]`), null, 'no draft form on a filed report');
    const [entry] = await registry(h, 'frozen', 'case.report_filed');
    assert.equal(entry?.actor, `user:${email}`);
    assert.equal(JSON.parse(entry!.details).content_sha256, sha);
    const bundled = (await h.evidence.exportCase('frozen', 1)).reports.find((r) => r.stage === 'early_warning')!;
    assert.equal(createHash('sha256').update(bundled.content_json!).digest('hex'), sha);
    const resave = await agent.post(report, draft);
    assert.equal(resave.statusCode, 409);
    assert.match(alertText(parseHtml(resave.body)) ?? '', /a filed report is frozen$/);
  });

  it('downloads a report as plain text in the order of the SRP form', async () => {
    const h = harness();
    const { agent, base } = await routerOrganisation(h, 'text');
    await openVulnerability(h, 'text');
    await fileStage(h, 'text', 'early_warning', { reference: 'SRP-EW-1', at: new Date('2026-11-21T09:00:00Z') });
    const download = await agent.get(`${base}/cases/1/reports/early-warning/text`);
    assert.equal(download.headers['content-type'], 'text/plain; charset=utf-8');
    assert.equal(download.headers['content-disposition'], 'attachment; filename="case-1-early-warning.txt"');
    assert.ok(
      download.body.startsWith('Early warning — case 1 (CRA Article 14)\nTo: the CSIRT designated as coordinator of DE, and ENISA\n'),
    );
    assert.ok(download.body.includes('Filed: 2026-11-21T09:00:00.000Z, SRP reference SRP-EW-1'));
    const at = (label: string) => download.body.indexOf(`\n${label}`);
    assert.ok(at('Title:') < at('Manufacturer: legal name:') && at('Manufacturer: legal name:') < at('Time of becoming aware:'));
  });

  it("carries the filed early warning's summary into the notification, which names its own missing fields", async () => {
    const h = harness();
    const { agent, base } = await routerOrganisation(h, 'notify');
    await openVulnerability(h, 'notify');
    await fileStage(h, 'notify', 'early_warning', { reference: 'SRP-EW-1' });
    const action = `${base}/cases/1/reports/notification`;
    const page = await agent.get(action);
    const missing = [...parseHtml(page.body).querySelectorAll('#missing li a')].map((a) => [text(a), a.getAttribute('href')]);
    assert.deepEqual(missing[0], ['General nature of the exploit and of the vulnerability', '#f-nature']);
    const draft = draftOf(page.body, action);
    assert.equal(draft.summary, 'Crafted request runs commands.');
    const typed = { nature: 'Command injection', corrective_measures: 'Patched build', user_measures: 'Disable remote administration' };
    assert.equal((await agent.post(action, { ...draft, ...typed, tlp: 'AMBER' })).statusCode, 303);
    assert.equal((await agent.post(`${action}/file`, { reference: 'SRP-N-1', filed_at: '' })).statusCode, 303);
    assert.equal((await h.reports.getReport('notify', 1, 'notification')).filed?.srp_reference, 'SRP-N-1');
  });

  it('opens the intermediate report the CSIRT asked for by its number; a number never asked answers 404', async () => {
    const h = harness();
    const { agent, base } = await routerOrganisation(h, 'inter');
    await openVulnerability(h, 'inter');
    await h.reports.requestIntermediate('inter', 1, new Date('2026-11-25T10:00:00Z'));
    const action = `${base}/cases/1/reports/intermediate-1`;
    const page = await agent.get(action);
    assert.equal(text(one(parseHtml(page.body), 'h1')), 'Intermediate report 1 (asked by the CSIRT)');
    assert.equal((await agent.post(action, { ...draftOf(page.body, action), status_update: 'Fix rolling out' })).statusCode, 303);
    assert.equal((await agent.post(`${action}/file`, { reference: 'SRP-I-1', filed_at: '' })).statusCode, 303);
    assert.equal((await agent.get(`${base}/cases/1/reports/intermediate-2`)).statusCode, 404);
  });

  it('pre-fills the final report with the time the fix became available', async () => {
    const h = harness();
    const { agent, base } = await routerOrganisation(h, 'final');
    await openVulnerability(h, 'final');
    await h.reports.recordFix('final', 1, new Date('2026-11-22T08:00:00Z'), 'Firmware 2.1.1');
    const action = `${base}/cases/1/reports/final`;
    const draft = draftOf((await agent.get(action)).body, action);
    assert.equal(draft.remediation_available_at, '2026-11-22T08:00:00.000Z');
    const typed = { description: 'Command injection', severity: 'Critical', impact: 'Full device takeover' };
    assert.equal((await agent.post(action, { ...draft, ...typed })).statusCode, 303);
    const saved = await h.reports.getReport('final', 1, 'final');
    assert.equal(saved.fields.remediation_available_at, '2026-11-22T08:00:00.000Z');
    assert.equal(saved.fields.severity, 'Critical');
  });
});
