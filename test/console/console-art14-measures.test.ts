import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { useHarness } from '../helpers/app.js';
import { csafErrors } from '../helpers/csaf.js';
import { alertText, facts, fieldError, one, parseHtml, rawText, tableRecords } from '../helpers/html.js';
import { AWARE_AT, fileStage, openVulnerability, registry, routerOrganisation, stages } from './art14-cases.js';

// What happens on a case around its reports, in the console over HTTP: the CSIRT's requests for
// intermediate reports and the corrective measure, the clocks still running on Today and the
// Cases list, the CSAF advisory and its publication, the evidence bundle, confidential notes and
// closing. Each test builds its own organisation and case (art14-cases.ts); the clock starts at
// 2026-11-22T10:00:30Z, the case's awareness time is 2026-11-20T10:00Z.

describe('console Article 14: measures, clocks, exports, notes and closing', () => {
  const harness = useHarness();

  it("records the CSIRT's request for an intermediate report and the fix, each time checked beside its field; both stages then fall due", async () => {
    const h = harness();
    const { agent, base } = await routerOrganisation(h, 'measures');
    await openVulnerability(h, 'measures');
    const kase = `${base}/cases/1`;
    await agent.get(kase);
    const noDue = await agent.post(`${kase}/intermediate`, { due: '' });
    assert.equal(fieldError(parseHtml(noDue.body), 'due'), 'Give the due time the CSIRT set as YYYY-MM-DDTHH:MM in UTC.');
    const beforeAware = await agent.post(`${kase}/intermediate`, { due: '2026-11-19T00:00' });
    assert.equal(
      fieldError(parseHtml(beforeAware.body), 'due'),
      `the due time 2026-11-19T00:00:00.000Z is before the case's awareness time ${AWARE_AT.toISOString()}`,
    );
    assert.equal((await agent.post(`${kase}/intermediate`, { due: '2026-11-25T10:00' })).statusCode, 303);
    const future = await agent.post(`${kase}/fix`, { fix_at: '2026-12-01T00:00', fix_description: '' });
    assert.equal(
      fieldError(parseHtml(future.body), 'fix_at'),
      'the time 2026-12-01T00:00:00.000Z is in the future: record a measure once it is available',
    );
    assert.equal((await agent.post(`${kase}/fix`, { fix_at: '2026-11-22T08:00', fix_description: 'Firmware 2.1.1' })).statusCode, 303);
    const page = (await agent.get(kase)).body;
    assert.deepEqual(stages(one(parseHtml(page), '#deadlines')).slice(2), [
      ['Intermediate report 1 (asked by the CSIRT)', '2026-11-25 10:00 UTC 71 h 59 min left', 'not yet', 'pending'],
      ['Final report (14 days after the corrective measure)', '2026-12-06 08:00 UTC 13 d 21 h left', 'not yet', 'pending'],
    ]);
    assert.equal(facts(one(parseHtml(page), '#measures'))['Corrective measure'], 'available since 2026-11-22 08:00 UTC');
  });

  it('runs every stage still to file on Today and the Cases list, and closing names each of them', async () => {
    const h = harness();
    const { agent, base } = await routerOrganisation(h, 'clocks');
    await openVulnerability(h, 'clocks');
    await fileStage(h, 'clocks', 'early_warning', { reference: 'SRP-EW-1' });
    await h.reports.requestIntermediate('clocks', 1, new Date('2026-11-25T10:00:00Z'));
    await h.reports.recordFix('clocks', 1, new Date('2026-11-22T08:00:00Z'), 'Firmware 2.1.1');
    const today = tableRecords(one(parseHtml((await agent.get(`${base}/today`)).body), '#clocks table'));
    assert.deepEqual(today, [
      {
        Case: '#1 RCE in the web UI',
        Product: 'RTR-9',
        'Early warning (24 h)': 'sent',
        'Notification (72 h)': '23 h 59 min left due 2026-11-23 10:00 UTC',
        'Later reports':
          'intermediate report 1: 71 h 59 min left due 2026-11-25 10:00 UTC final report: 13 d 21 h left due 2026-12-06 08:00 UTC',
      },
    ]);
    const [listed] = tableRecords(one(parseHtml((await agent.get(`${base}/cases`)).body), 'table'));
    assert.equal(listed?.['Later reports'], 'intermediate report 1: 71 h 59 min left final report: 13 d 21 h left');
    const blocked = await agent.post(`${base}/cases/1/close`, {});
    assert.equal(blocked.statusCode, 409);
    assert.ok(
      alertText(parseHtml(blocked.body))?.endsWith(
        'not yet filed: notification (pending, due 2026-11-23T10:00:00.000Z); intermediate report 1 (pending, due 2026-11-25T10:00:00.000Z); final report (pending, due 2026-12-06T08:00:00.000Z)',
      ),
      alertText(parseHtml(blocked.body)),
    );
  });

  it('downloads the CSAF 2.0 advisory, and records where it was published (an http(s) address)', async () => {
    const h = harness();
    const { agent, base, email } = await routerOrganisation(h, 'csaf');
    await openVulnerability(h, 'csaf');
    await fileStage(h, 'csaf', 'early_warning', { reference: 'SRP-EW-1' });
    await fileStage(h, 'csaf', 'notification', { reference: 'SRP-N-1' });
    const advisory = await agent.get(`${base}/cases/1/advisory.json`);
    assert.equal(advisory.statusCode, 200);
    assert.equal(advisory.headers['content-disposition'], 'attachment; filename="case-1-csaf.json"');
    assert.deepEqual(await csafErrors(advisory.json()), []);
    assert.equal(advisory.json().document.category, 'csaf_security_advisory');
    await agent.get(`${base}/cases/1`);
    const ftp = await agent.post(`${base}/cases/1/advisory-published`, { advisory_url: 'ftp://x', advisory_at: '' });
    assert.equal(fieldError(parseHtml(ftp.body), 'advisory_url'), 'Give the http(s) address where it was published.');
    const url = 'https://art.example/psirt/1';
    assert.equal((await agent.post(`${base}/cases/1/advisory-published`, { advisory_url: url, advisory_at: '' })).statusCode, 303);
    const history = tableRecords(one(parseHtml((await agent.get(`${base}/cases/1`)).body), '[aria-labelledby="history-title"] table'));
    assert.ok(history.some((e) => e.What === 'case.advisory_published' && e.Who === `user:${email}`));
  });

  it('downloads the evidence bundle: every filed report with its SRP reference, and a registry that verifies', async () => {
    const h = harness();
    const { agent, base } = await routerOrganisation(h, 'bundle');
    await openVulnerability(h, 'bundle');
    await fileStage(h, 'bundle', 'early_warning', { reference: 'SRP-EW-1' });
    await fileStage(h, 'bundle', 'notification', { reference: 'SRP-N-1' });
    const bundle = await agent.get(`${base}/cases/1/export.json`);
    assert.equal(bundle.headers['content-disposition'], 'attachment; filename="case-1-evidence.json"');
    const reports = bundle.json().reports as Array<{ stage: string; srp_reference: string | null }>;
    assert.deepEqual(
      reports.filter((r) => r.srp_reference).map((r) => [r.stage, r.srp_reference]),
      [
        ['early_warning', 'SRP-EW-1'],
        ['notification', 'SRP-N-1'],
      ],
    );
    assert.equal(bundle.json().registry.verification.ok, true);
  });

  it('keeps notes confidential: shown on the case, the registry records only that one was added', async () => {
    const h = harness();
    const { agent, base, email } = await routerOrganisation(h, 'notes');
    await openVulnerability(h, 'notes');
    await agent.get(`${base}/cases/1`);
    const empty = await agent.post(`${base}/cases/1/notes`, { note: '  ' });
    assert.equal(fieldError(parseHtml(empty.body), 'note'), 'the note is empty');
    assert.equal((await agent.post(`${base}/cases/1/notes`, { note: 'Customer X informed by phone.' })).statusCode, 303);
    const notes = one(parseHtml((await agent.get(`${base}/cases/1`)).body), '[aria-labelledby="notes-title"] .pre');
    assert.ok(rawText(notes).includes(`— user:${email}, ${h.clock.now().toISOString()}\nCustomer X informed by phone.`), rawText(notes));
    const [added] = await registry(h, 'notes', 'case.note_added');
    assert.ok(added);
    assert.doesNotMatch(added.details, /Customer X/);
  });

  it('closes a case once every due stage is filed; its stages then show when each was met', async () => {
    const h = harness();
    const { agent, base } = await routerOrganisation(h, 'close');
    await openVulnerability(h, 'close');
    await fileStage(h, 'close', 'early_warning', { reference: 'SRP-EW-1', at: new Date('2026-11-21T09:00:00Z') });
    await fileStage(h, 'close', 'notification', { reference: 'SRP-N-1' });
    await h.reports.recordFix('close', 1, new Date('2026-11-22T08:00:00Z'), 'Firmware 2.1.1');
    await fileStage(h, 'close', 'final', { reference: 'SRP-F-1' });
    await agent.get(`${base}/cases/1`);
    assert.equal((await agent.post(`${base}/cases/1/close`, {})).statusCode, 303);
    const closed = parseHtml((await agent.get(`${base}/cases/1`)).body);
    assert.match(facts(closed).Status ?? '', /^closed since /);
    assert.deepEqual(stages(one(closed, '[aria-labelledby="deadlines-title"]'))[0], [
      'Early warning (24 h)',
      '2026-11-21 10:00 UTC',
      '2026-11-21 09:00 UTC (on time)',
      'met',
    ]);
  });
});
