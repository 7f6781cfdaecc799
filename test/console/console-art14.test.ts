import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { recentRegistry } from '../../src/registry/registry.service.js';
import { type Harness, useHarness } from '../helpers/app.js';
import { signedInAgent } from '../helpers/console.js';
import { csafErrors } from '../helpers/csaf.js';
import { postIncident } from '../helpers/incidents.js';

// Article 14 in the console over HTTP (a browser without JavaScript): triage actions, each
// stage's report form, filing, exports, measures, notes and organisation data; roles, tenancy
// and CSRF for every new action. The harness clock is 2026-11-22T10:00Z.

async function entries(h: Harness, org: string, action: string) {
  const orgId = (await h.orgs.requireOrg(org)).id;
  return (await recentRegistry(h.database, orgId, { action, limit: 50 })).entries;
}

describe('console Article 14', () => {
  const harness = useHarness();

  it('triage: dismiss with a reason, merge into a case, attribute to a product, open an incident that is not notifiable', async () => {
    const h = harness();
    const tenant = await h.tenant('tri', ['incidents:write']);
    await h.products.addProduct('tri', 'CAM-1', { name: 'Camera' });
    for (const d of ['Spam report', 'Duplicate of the RCE', 'Unknown device', 'Leak', 'The RCE'])
      assert.equal((await postIncident(h, tenant.key, { description: d })).statusCode, 201);
    await h.cases.openCase('tri', { signalNumber: 5, notifiable: true });
    const { agent } = await signedInAgent(h, 'tri', 'ana@example.com', 'analyst');
    const signals = await agent.get('/console/o/tri/signals');
    assert.match(signals.body, /<button type="submit" class="secondary">Dismiss #1<\/button>/);

    const noReason = await agent.post('/console/o/tri/signals/dismiss', { number: '1', dismiss_reason: ' ' });
    assert.equal(noReason.statusCode, 400);
    assert.match(noReason.body, /id="dismiss_reason-error">Say why this signal is dismissed/);
    const dismissed = await agent.post('/console/o/tri/signals/dismiss', { number: '1', dismiss_reason: 'Spam, no product of ours' });
    assert.equal(dismissed.statusCode, 303);
    assert.equal(dismissed.headers.location, '/console/o/tri/signals#signal-1');
    const again = await agent.post('/console/o/tri/signals/dismiss', { number: '1', dismiss_reason: 'twice' });
    assert.equal(again.statusCode, 409);
    assert.match(again.body, /<p class="alert" role="alert">signal 1 was already triaged \(DISMISSED\)/);

    const noCase = await agent.post('/console/o/tri/signals/merge', { number: '2', into: '9' });
    assert.equal(noCase.statusCode, 400);
    assert.match(noCase.body, /id="into-error">no case with incident number 9/);
    const notNumber = await agent.post('/console/o/tri/signals/merge', { number: '2', into: 'five' });
    assert.match(notNumber.body, /id="into-error">Give the number of the case this signal duplicates/);
    assert.equal((await agent.post('/console/o/tri/signals/merge', { number: '2', into: '5' })).statusCode, 303);

    const noProduct = await agent.post('/console/o/tri/signals/attribute', { number: '3', attribute_sku: 'NOPE' });
    assert.match(noProduct.body, /id="attribute_sku-error">no product with SKU &quot;NOPE&quot;/);
    assert.equal((await agent.post('/console/o/tri/signals/attribute', { number: '3', attribute_sku: 'CAM-1' })).statusCode, 303);
    assert.match((await agent.get('/console/o/tri/signals')).body, /<dt>Product<\/dt><dd>CAM-1<\/dd>/, 'attributed, still awaiting triage');

    const incident = await agent.post('/console/o/tri/signals/open-case', {
      number: '4',
      kind: 'incident',
      reason: 'No impact on the product’s security',
      aware_at: '',
      product_sku: '',
    });
    assert.equal(incident.statusCode, 303);
    const kase = await agent.get('/console/o/tri/cases/4');
    assert.match(kase.body, /<dt>Kind<\/dt><dd>severe incident<\/dd>/);
    assert.match(kase.body, /<dt>Notifiable<\/dt><dd>no: No impact on the product’s security<\/dd>/);
    assert.match(kase.body, /It has no Article 14 clocks and no reports/);
    const badKind = await agent.post('/console/o/tri/signals/open-case', {
      number: '3',
      kind: 'rumour',
      notifiable: 'yes',
      aware_at: '',
      product_sku: '',
    });
    assert.match(badKind.body, /id="kind-error">Choose vulnerability/);

    const all = await agent.get('/console/o/tri/signals?all=1');
    assert.match(all.body, /<dt>Dismissed because<\/dt><dd>Spam, no product of ours<\/dd>/);
    assert.match(all.body, /<dt>Duplicate of<\/dt><dd><a href="\/console\/o\/tri\/cases\/5">case #5<\/a>/);
    for (const action of ['signal.dismissed', 'signal.merged', 'signal.attributed'])
      assert.equal((await entries(h, 'tri', action))[0]?.actor, 'user:ana@example.com', action);
  });

  it('triage is refused to a viewer, without the CSRF token, and for another organisation’s signal', async () => {
    const h = harness();
    const mine = await h.tenant('tri-a', ['incidents:write']);
    const theirs = await h.tenant('tri-b', ['incidents:write']);
    await postIncident(h, mine.key, { description: 'Mine' });
    await postIncident(h, theirs.key, { description: 'Theirs' });
    await postIncident(h, theirs.key, { description: 'Theirs too' });
    const { agent: viewer } = await signedInAgent(h, 'tri-a', 'vic.tri@example.com', 'viewer');
    await viewer.get('/console/o/tri-a/signals');
    const forms = {
      dismiss: { number: '1', dismiss_reason: 'x' },
      merge: { number: '1', into: '1' },
      attribute: { number: '1', attribute_sku: 'X' },
    };
    for (const [action, form] of Object.entries(forms))
      assert.equal((await viewer.post(`/console/o/tri-a/signals/${action}`, form)).statusCode, 403, action);

    const { agent } = await signedInAgent(h, 'tri-a', 'ana.tri@example.com', 'analyst');
    await agent.get('/console/o/tri-a/signals');
    for (const [action, form] of Object.entries(forms))
      assert.equal(
        (await agent.post(`/console/o/tri-a/signals/${action}`, form, { csrf: false })).statusCode,
        403,
        `${action} without CSRF`,
      );
    assert.equal((await agent.post('/console/o/tri-a/signals/dismiss', { number: '2', dismiss_reason: 'not ours' })).statusCode, 404);
    assert.equal((await agent.post('/console/o/tri-b/signals/dismiss', { number: '1', dismiss_reason: 'x' })).statusCode, 404);
    assert.equal((await h.incidents.listSignals(theirs.slug)).filter((s) => s.status === 'INCOMING').length, 2);
    assert.equal((await h.incidents.listSignals(mine.slug))[0]?.status, 'INCOMING');
  });

  it('a vulnerability through every stage: drafts checked field by field, filings frozen with their SHA-256, text export, fix, CSIRT request, advisory, evidence, close', async () => {
    const h = harness();
    const tenant = await h.tenant('art', ['incidents:write']);
    await h.products.addProduct('art', 'RTR-9', { name: 'Router 9', firmwareVersion: '2.1.0', markets: ['DE', 'FR'] });
    await postIncident(h, tenant.key, {
      sku: 'RTR-9',
      title: 'RCE in the web UI',
      description: 'Crafted request runs commands.',
      cve: 'CVE-2026-1111',
    });
    const { agent } = await signedInAgent(h, 'art', 'ana.art@example.com', 'analyst');
    const { agent: admin } = await signedInAgent(h, 'art', 'adm@example.com', 'admin');

    // Organisation data first (admin), refused to the analyst, checked field by field.
    assert.match((await admin.get('/console/o/art/organisation')).body, /<button type="submit">Save<\/button>/);
    const badState = await admin.post('/console/o/art/organisation', {
      legal_name: 'Art GmbH',
      postal_address: 'Hauptstr. 1, Berlin',
      contact_email: 'psirt',
      member_state: 'XX',
    });
    assert.equal(badState.statusCode, 400);
    assert.match(badState.body, /id="contact_email-error">Give an e-mail address/);
    assert.match(badState.body, /id="member_state-error">Choose one of the 27 Member States/);
    const org = { legal_name: 'Art GmbH', postal_address: 'Hauptstr. 1, Berlin', contact_email: 'psirt@art.example', member_state: 'DE' };
    assert.equal((await admin.post('/console/o/art/organisation', org)).statusCode, 303);
    assert.equal((await entries(h, 'art', 'org.details_changed'))[0]?.actor, 'user:adm@example.com');
    await agent.get('/console/o/art/organisation');
    assert.equal((await agent.post('/console/o/art/organisation', org)).statusCode, 403);

    // Open: aware two days ago, so the early warning is overdue and the notification pending.
    await agent.get('/console/o/art/signals');
    const opened = await agent.post('/console/o/art/signals/open-case', {
      number: '1',
      kind: 'vulnerability',
      notifiable: 'yes',
      aware_at: '2026-11-20T10:00',
      product_sku: '',
    });
    assert.equal(opened.statusCode, 303);
    const kase = await agent.get('/console/o/art/cases/1');
    assert.match(
      kase.body,
      /Early warning \(24 h\)<\/td>\s*<td>2026-11-21 10:00 UTC<br><span class="clock overdue">overdue by 24 h 0\d min<\/span><\/td>\s*<td>not yet<\/td>\s*<td><span class="state state-overdue">overdue/,
    );
    assert.match(
      kase.body,
      /Vulnerability notification \(72 h\)<\/td>\s*<td>2026-11-23 10:00 UTC<br><span class="clock">23 h 5\d min left/,
    );
    assert.match(
      kase.body,
      /Final report \(14 days after the corrective measure\)<\/td>\s*<td>no due time yet<\/td>\s*<td>not yet<\/td>\s*<td><span class="state state-waiting">waiting for a corrective measure/,
    );
    assert.match(kase.body, /hx-get="\/console\/o\/art\/cases\/1\/deadlines" hx-trigger="every 30s"/);
    const live = await agent.get('/console/o/art/cases/1/deadlines');
    assert.match(live.body, /^\s*<table>/, 'the live fragment is the table alone');

    // The early warning: pre-filled from the platform, every missing field named.
    const ew = await agent.get('/console/o/art/cases/1/reports/early-warning');
    assert.equal(ew.statusCode, 200);
    assert.match(ew.body, /<dt>To<\/dt><dd>the CSIRT designated as coordinator of DE, and ENISA<\/dd>/);
    assert.match(ew.body, /id="f-manufacturer_name" name="manufacturer_name" type="text" value="Art GmbH"/);
    assert.match(ew.body, /id="f-markets" name="markets" type="text" value="DE, FR"/);
    assert.match(ew.body, /id="f-affected_versions" name="affected_versions" type="text" value="2.1.0"/);
    assert.match(ew.body, /id="f-cve_ids" name="cve_ids" type="text" value="CVE-2026-1111"/);
    assert.match(ew.body, /Every required field is filled in/);
    /** What a browser would post from the report form: inputs, text areas and the selected options. */
    const form = (body: string) => {
      const unescaped = (v: string) =>
        v
          .replace(/&#39;/g, "'")
          .replace(/&quot;/g, '"')
          .replace(/&amp;/g, '&');
      const fields: Record<string, string> = {};
      for (const m of body.matchAll(/name="([a-z_]+)"(?: type="text" value="([^"]*)"| rows="3"[^>]*>([^<]*)<)/g))
        fields[m[1]!] = unescaped(m[2] ?? m[3] ?? '');
      for (const m of body.matchAll(/<select id="f-[a-z_]+" name="([a-z_]+)"[^>]*>([\s\S]*?)<\/select>/g))
        fields[m[1]!] = /<option value="([^"]*)" selected>/.exec(m[2]!)?.[1] ?? '';
      return fields;
    };
    const draft = form(ew.body);
    assert.equal(draft.title, 'RCE in the web UI');
    assert.equal(draft.kind, 'vulnerability');
    const invalid = await agent.post('/console/o/art/cases/1/reports/early-warning', {
      ...draft,
      manufacturer_contact_email: 'nope',
      cve_ids: 'CVE-1',
    });
    assert.equal(invalid.statusCode, 400);
    assert.match(invalid.body, /id="manufacturer_contact_email-error">&quot;nope&quot; is not an e-mail address/);
    assert.match(invalid.body, /id="cve_ids-error">not CVE-YYYY-NNNN or EUVD-YYYY-NNNN identifiers: CVE-1/);
    const cleared = await agent.post('/console/o/art/cases/1/reports/early-warning', { ...draft, summary: '', product_name: '' });
    assert.equal(cleared.statusCode, 303);
    assert.equal(cleared.headers.location, '/console/o/art/cases/1/reports/early-warning?saved=1');
    const missing = await agent.get('/console/o/art/cases/1/reports/early-warning?saved=1');
    assert.match(missing.body, /Draft saved\./);
    assert.match(missing.body, /<li><a href="#f-summary">Summary<\/a><\/li>\s*<li><a href="#f-product_name">Product name<\/a><\/li>/);
    const refused = await agent.post('/console/o/art/cases/1/reports/early-warning/file', {
      reference: 'SRP-EW-1',
      filed_at: '2026-11-21T09:00',
    });
    assert.equal(refused.statusCode, 400);
    assert.match(refused.body, /id="_file-error">cannot file the early warning of case 1: missing required fields: summary, product_name/);
    await agent.post('/console/o/art/cases/1/reports/early-warning', {
      ...draft,
      summary: 'Crafted request runs commands.',
      product_name: 'Router 9',
    });
    const beforeAware = await agent.post('/console/o/art/cases/1/reports/early-warning/file', {
      reference: 'SRP-EW-1',
      filed_at: '2026-11-20T09:59',
    });
    assert.match(beforeAware.body, /id="filed_at-error">the filing time 2026-11-20T09:59:00.000Z is before the case&#39;s awareness time/);
    const noRef = await agent.post('/console/o/art/cases/1/reports/early-warning/file', { reference: '', filed_at: '' });
    assert.match(noRef.body, /id="reference-error">Give the reference the SRP gave this report/);
    const filed = await agent.post('/console/o/art/cases/1/reports/early-warning/file', {
      reference: 'SRP-EW-1',
      filed_at: '2026-11-21T09:00',
    });
    assert.equal(filed.statusCode, 303);
    const frozen = await agent.get('/console/o/art/cases/1/reports/early-warning');
    const sha = /<code id="content-sha256">([0-9a-f]{64})<\/code>/.exec(frozen.body)?.[1];
    assert.ok(sha, 'the SHA-256 is shown');
    assert.match(frozen.body, /<dt>Filed by<\/dt><dd>user:ana.art@example.com<\/dd>/);
    assert.match(frozen.body, /<dt>Filed<\/dt><dd>2026-11-21 09:00 UTC, SRP reference SRP-EW-1<\/dd>/);
    assert.doesNotMatch(frozen.body, /Save the draft/, 'a filed report is frozen');
    const filing = (await entries(h, 'art', 'case.report_filed'))[0]!;
    assert.equal(filing.actor, 'user:ana.art@example.com');
    assert.equal(JSON.parse(filing.details).content_sha256, sha);
    const exportedEw = (await h.evidence.exportCase('art', 1)).reports.find((r) => r.stage === 'early_warning')!;
    assert.equal(createHash('sha256').update(exportedEw.content_json!).digest('hex'), sha);
    const resave = await agent.post('/console/o/art/cases/1/reports/early-warning', draft);
    assert.equal(resave.statusCode, 409);
    assert.match(resave.body, /a filed report is frozen/);
    const text = await agent.get('/console/o/art/cases/1/reports/early-warning/text');
    assert.equal(text.headers['content-type'], 'text/plain; charset=utf-8');
    assert.equal(text.headers['content-disposition'], 'attachment; filename="case-1-early-warning.txt"');
    assert.match(text.body, /^Early warning — case 1 \(CRA Article 14\)\nTo: the CSIRT designated as coordinator of DE, and ENISA\n/);
    assert.match(text.body, /Filed: 2026-11-21T09:00:00.000Z, SRP reference SRP-EW-1/);
    assert.ok(text.body.indexOf('Title:') < text.body.indexOf('Manufacturer: legal name:'), 'in the form’s order');
    assert.ok(text.body.indexOf('Manufacturer: legal name:') < text.body.indexOf('Time of becoming aware:'));

    // The notification: more fields; filed now, on time.
    const notification = await agent.get('/console/o/art/cases/1/reports/notification');
    assert.match(notification.body, /<li><a href="#f-nature">General nature of the exploit and of the vulnerability<\/a><\/li>/);
    assert.match(
      notification.body,
      /id="f-summary" name="summary" rows="3"[^>]*>Crafted request runs commands.<\/textarea>/,
      'carried over from the filed early warning',
    );
    const notified = {
      ...form(notification.body),
      nature: 'Command injection in the CGI handler',
      corrective_measures: 'Patched build in QA',
      user_measures: 'Disable remote administration',
      tlp: 'AMBER',
    };
    assert.equal((await agent.post('/console/o/art/cases/1/reports/notification', notified)).statusCode, 303);
    assert.equal(
      (await agent.post('/console/o/art/cases/1/reports/notification/file', { reference: 'SRP-N-1', filed_at: '' })).statusCode,
      303,
    );

    // The CSIRT asks for an intermediate report; a fix is recorded: the final report's clock starts.
    const noDue = await agent.post('/console/o/art/cases/1/intermediate', { due: '' });
    assert.match(noDue.body, /id="due-error">Give the due time the CSIRT set/);
    const early = await agent.post('/console/o/art/cases/1/intermediate', { due: '2026-11-19T00:00' });
    assert.match(early.body, /id="due-error">the due time 2026-11-19T00:00:00.000Z is before the case&#39;s awareness time/);
    assert.equal((await agent.post('/console/o/art/cases/1/intermediate', { due: '2026-11-25T10:00' })).statusCode, 303);
    const future = await agent.post('/console/o/art/cases/1/fix', { fix_at: '2026-12-01T00:00', fix_description: '' });
    assert.match(future.body, /id="fix_at-error">the time 2026-12-01T00:00:00.000Z is in the future/);
    assert.equal(
      (await agent.post('/console/o/art/cases/1/fix', { fix_at: '2026-11-22T08:00', fix_description: 'Firmware 2.1.1' })).statusCode,
      303,
    );
    const withFix = await agent.get('/console/o/art/cases/1');
    assert.match(withFix.body, /Intermediate report 1 \(asked by the CSIRT\)<\/td>\s*<td>2026-11-25 10:00 UTC/);
    assert.match(withFix.body, /Final report \(14 days after the corrective measure\)<\/td>\s*<td>2026-12-06 08:00 UTC/);
    assert.match(withFix.body, /<dt>Corrective measure<\/dt><dd>available since 2026-11-22 08:00 UTC<\/dd>/);
    // Today and the case list run the later reports' clocks too.
    for (const page of ['/console/o/art/today', '/console/o/art/cases']) {
      const body = (await agent.get(page)).body;
      assert.match(body, /intermediate report 1: <span class="clock(?: overdue)?">[^<]+<\/span>/, page);
      assert.match(body, /final report: <span class="clock(?: overdue)?">[^<]+<\/span>/, page);
    }
    assert.match((await agent.get('/console/o/art/today')).body, /<small>due 2026-12-06 08:00 UTC<\/small>/);
    const blocked = await agent.post('/console/o/art/cases/1/close', {});
    assert.equal(blocked.statusCode, 409);
    assert.match(
      blocked.body,
      /not yet filed: intermediate report 1 \(pending, due 2026-11-25T10:00:00.000Z\); final report \(pending, due 2026-12-06T08:00:00.000Z\)/,
    );

    const inter = await agent.get('/console/o/art/cases/1/reports/intermediate-1');
    assert.match(inter.body, /<h1>Intermediate report 1 \(asked by the CSIRT\)<\/h1>/);
    assert.equal(
      (await agent.post('/console/o/art/cases/1/reports/intermediate-1', { ...form(inter.body), status_update: 'Fix rolling out' }))
        .statusCode,
      303,
    );
    assert.equal(
      (await agent.post('/console/o/art/cases/1/reports/intermediate-1/file', { reference: 'SRP-I-1', filed_at: '' })).statusCode,
      303,
    );
    assert.equal((await agent.get('/console/o/art/cases/1/reports/intermediate-2')).statusCode, 404);

    const final = await agent.get('/console/o/art/cases/1/reports/final');
    assert.match(
      final.body,
      /id="f-remediation_available_at" name="remediation_available_at" type="text" value="2026-11-22T08:00:00.000Z"/,
    );
    const finalFields = { ...form(final.body), description: 'Command injection', severity: 'Critical', impact: 'Full device takeover' };
    assert.equal((await agent.post('/console/o/art/cases/1/reports/final', finalFields)).statusCode, 303);
    assert.equal((await agent.post('/console/o/art/cases/1/reports/final/file', { reference: 'SRP-F-1', filed_at: '' })).statusCode, 303);

    // 14(8) advisory and the evidence bundle, as downloads.
    const advisory = await agent.get('/console/o/art/cases/1/advisory.json');
    assert.equal(advisory.statusCode, 200);
    assert.equal(advisory.headers['content-disposition'], 'attachment; filename="case-1-csaf.json"');
    assert.deepEqual(await csafErrors(advisory.json()), []);
    assert.equal(advisory.json().document.category, 'csaf_security_advisory');
    const published = await agent.post('/console/o/art/cases/1/advisory-published', { advisory_url: 'ftp://x', advisory_at: '' });
    assert.match(published.body, /id="advisory_url-error">Give the http\(s\) address/);
    assert.equal(
      (await agent.post('/console/o/art/cases/1/advisory-published', { advisory_url: 'https://art.example/psirt/1', advisory_at: '' }))
        .statusCode,
      303,
    );
    const bundle = await agent.get('/console/o/art/cases/1/export.json');
    assert.equal(bundle.headers['content-disposition'], 'attachment; filename="case-1-evidence.json"');
    assert.deepEqual(
      bundle
        .json()
        .reports.map((r: { stage: string; srp_reference: string }) => [r.stage, r.srp_reference])
        .sort(),
      [
        ['early_warning', 'SRP-EW-1'],
        ['final', 'SRP-F-1'],
        ['intermediate', 'SRP-I-1'],
        ['notification', 'SRP-N-1'],
      ],
    );
    assert.equal(bundle.json().registry.verification.ok, true);

    // Notes: confidential, the registry records only that one was added.
    const empty = await agent.post('/console/o/art/cases/1/notes', { note: '  ' });
    assert.match(empty.body, /id="note-error">the note is empty/);
    assert.equal((await agent.post('/console/o/art/cases/1/notes', { note: 'Customer X informed by phone.' })).statusCode, 303);
    assert.match(
      (await agent.get('/console/o/art/cases/1')).body,
      /— user:ana.art@example.com, 2026-11-22T10:0\d:\d\d.\d{3}Z\nCustomer X informed by phone./,
    );
    const noted = (await entries(h, 'art', 'case.note_added'))[0]!;
    assert.doesNotMatch(noted.details, /Customer X/);

    assert.equal((await agent.post('/console/o/art/cases/1/close', {})).statusCode, 303);
    const closed = await agent.get('/console/o/art/cases/1');
    assert.match(closed.body, /<dt>Status<\/dt><dd>closed/);
    assert.match(
      closed.body,
      /Early warning \(24 h\)<\/td>\s*<td>2026-11-21 10:00 UTC<\/td>\s*<td>2026-11-21 09:00 UTC \(on time\)<\/td>\s*<td><span class="state state-met">met/,
    );
  });

  it('the Article 14 actions are refused to a viewer and without CSRF; another organisation’s case and reports answer 404', async () => {
    const h = harness();
    const mine = await h.tenant('a14-a', ['incidents:write']);
    const theirs = await h.tenant('a14-b', ['incidents:write']);
    await postIncident(h, mine.key, { description: 'Mine' });
    await postIncident(h, theirs.key, { description: 'Their secret' });
    await h.cases.openCase('a14-a', { signalNumber: 1, notifiable: true });
    await h.cases.openCase('a14-b', { signalNumber: 1, notifiable: true });
    const posts: Array<[string, Record<string, string>]> = [
      ['/cases/1/reports/early-warning', { title: 'x' }],
      ['/cases/1/reports/early-warning/file', { reference: 'R', filed_at: '' }],
      ['/cases/1/fix', { fix_at: '', fix_description: '' }],
      ['/cases/1/intermediate', { due: '2026-11-30T00:00' }],
      ['/cases/1/notes', { note: 'n' }],
      ['/cases/1/advisory-published', { advisory_url: 'https://x.example/a', advisory_at: '' }],
      ['/organisation', { legal_name: 'x', postal_address: '', contact_email: '', member_state: '' }],
    ];
    const { agent: viewer } = await signedInAgent(h, 'a14-a', 'vic.a14@example.com', 'viewer');
    const page = await viewer.get('/console/o/a14-a/cases/1');
    assert.equal(page.statusCode, 200);
    assert.doesNotMatch(page.body, /Record the measure|Add the note|Record the request/);
    const report = await viewer.get('/console/o/a14-a/cases/1/reports/early-warning');
    assert.equal(report.statusCode, 200, 'a viewer reads the drafts');
    assert.doesNotMatch(report.body, /Save the draft|File the report/);
    assert.equal((await viewer.get('/console/o/a14-a/cases/1/export.json')).statusCode, 200, 'and downloads the evidence');
    for (const [path, form] of posts) assert.equal((await viewer.post(`/console/o/a14-a${path}`, form)).statusCode, 403, `viewer ${path}`);

    const { agent } = await signedInAgent(h, 'a14-a', 'olga.a14@example.com', 'owner');
    await agent.get('/console/o/a14-a/cases/1');
    for (const [path, form] of posts)
      assert.equal((await agent.post(`/console/o/a14-a${path}`, form, { csrf: false })).statusCode, 403, `no CSRF ${path}`);
    for (const url of [
      '/console/o/a14-b/cases/1/reports/early-warning',
      '/console/o/a14-b/cases/1/reports/early-warning/text',
      '/console/o/a14-b/cases/1/advisory.json',
      '/console/o/a14-b/cases/1/export.json',
      '/console/o/a14-a/cases/2/reports/early-warning',
      '/console/o/a14-a/cases/2/export.json',
      '/console/o/a14-a/cases/1/reports/preliminary',
    ]) {
      const r = await agent.get(url);
      assert.equal(r.statusCode, 404, url);
      assert.doesNotMatch(r.body, /Their secret/);
    }
    for (const [path, form] of posts.slice(0, 6))
      assert.equal(
        (await agent.post(`/console/o/a14-a${path.replace('/cases/1', '/cases/2')}`, form)).statusCode,
        404,
        `other case ${path}`,
      );
    assert.deepEqual(await entries(h, 'a14-a', 'case.report_filed'), []);
    assert.equal((await h.cases.getCase('a14-b', 1)).fix_available_at, null);
  });

  it('a vulnerability still waiting for its corrective measure closes once its due stages are filed (its final report has no due time yet)', async () => {
    const h = harness();
    const tenant = await h.tenant('wait', ['incidents:write']);
    await postIncident(h, tenant.key, { description: 'Exploited, no fix yet' });
    await h.cases.openCase('wait', { signalNumber: 1, notifiable: true, awareAt: new Date('2026-11-22T08:00:00Z') });
    const { agent } = await signedInAgent(h, 'wait', 'ana.wait@example.com', 'analyst');
    await agent.get('/console/o/wait/cases/1');
    assert.equal((await agent.post('/console/o/wait/cases/1/sent', { what: 'early-warning', at: '2026-11-22T09:00' })).statusCode, 303);
    const notYet = await agent.post('/console/o/wait/cases/1/close', {});
    assert.equal(notYet.statusCode, 409);
    assert.match(
      notYet.body,
      /not yet filed: notification \(pending, due 2026-11-25T08:00:00.000Z\)<\/p>/,
      'the waiting final report is not named',
    );
    assert.equal((await agent.post('/console/o/wait/cases/1/sent', { what: 'notification', at: '' })).statusCode, 303);
    assert.match((await agent.get('/console/o/wait/today')).body, /final report: waits for the fix/);
    assert.match((await agent.get('/console/o/wait/cases')).body, /final report waits for the fix/);
    const finalReport = await agent.get('/console/o/wait/cases/1/reports/final');
    assert.match(finalReport.body, /<dt>Due<\/dt><dd>no due time yet<\/dd>/);
    const early = await agent.post('/console/o/wait/cases/1/reports/final/file', { reference: 'F', filed_at: '' });
    assert.equal(early.statusCode, 409);
    assert.match(early.body, /waiting for a corrective measure: record it/);
    assert.equal((await agent.post('/console/o/wait/cases/1/close', {})).statusCode, 303);
  });

  it('product markets are edited on the product form; a form without the field keeps them', async () => {
    const h = harness();
    await h.tenant('mk', ['incidents:write']);
    await h.products.addProduct('mk', 'P-1', { name: 'Plug' });
    const { agent } = await signedInAgent(h, 'mk', 'adm.mk@example.com', 'admin');
    const edit = await agent.get('/console/o/mk/products/P-1/edit');
    assert.match(edit.body, /id="markets" name="markets" type="text" value=""/);
    const base = { name: 'Plug', gtin: '', firmware_version: '', end_of_support: '' };
    const bad = await agent.post('/console/o/mk/products/P-1', { ...base, markets: 'DE, XY' });
    assert.equal(bad.statusCode, 400);
    assert.match(bad.body, /id="markets-error">markets: not Member States: XY/);
    assert.equal((await agent.post('/console/o/mk/products/P-1', { ...base, markets: 'de, fr' })).statusCode, 303);
    assert.match((await agent.get('/console/o/mk/products/P-1')).body, /<dt>Made available in<\/dt><dd>DE, FR<\/dd>/);
    assert.equal((await agent.post('/console/o/mk/products/P-1', base)).statusCode, 303, 'a form without the field keeps them');
    assert.match((await agent.get('/console/o/mk/products/P-1/edit')).body, /id="markets" name="markets" type="text" value="DE, FR"/);
  });
});
