import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Harness, useHarness } from '../helpers/app.js';
import { type ConsoleAgent, signedInAgent } from '../helpers/console.js';
import { alertText, facts, fieldError, formFields, formFor, one, parseHtml, text } from '../helpers/html.js';
import { postIncident } from '../helpers/incidents.js';
import { registry, routerOrganisation, START } from './art14-cases.js';

// Article 14 in the console over HTTP (a browser without JavaScript): the triage actions, the
// organisation's details every report names, a product's markets, a case waiting for its fix,
// and the refusals (roles, CSRF, tenancy) of every new action. A case's stages are
// console-art14-reports.test.ts. Each test builds its own organisation.

/** An organisation with a camera and the signals `descriptions` (numbers 1, 2, …), an analyst signed in. */
async function withSignals(h: Harness, slug: string, descriptions: string[]): Promise<{ agent: ConsoleAgent; base: string }> {
  h.clock.current = new Date(START);
  const tenant = await h.tenant(slug, ['incidents:write']);
  await h.products.addProduct(slug, 'CAM-1', { name: 'Camera' });
  for (const description of descriptions) assert.equal((await postIncident(h, tenant.key, { description })).statusCode, 201);
  const { agent } = await signedInAgent(h, slug, `ana@${slug}.example`, 'analyst');
  await agent.get(`/console/o/${slug}/signals`);
  return { agent, base: `/console/o/${slug}` };
}

/** The facts shown for signal `n` on a signals page. */
const signalFacts = (body: string, n: number) => facts(one(parseHtml(body), `article[aria-labelledby="signal-${n}"]`));

describe('console Article 14', () => {
  const harness = useHarness();

  it('dismisses a signal with a reason (required), once, and records who did', async () => {
    const h = harness();
    const { agent, base } = await withSignals(h, 'dismiss', ['Spam report']);
    const button = one(parseHtml((await agent.get(`${base}/signals`)).body), `form[action="${base}/signals/dismiss"] button`);
    assert.equal(text(button), 'Dismiss #1');
    const noReason = await agent.post(`${base}/signals/dismiss`, { number: '1', dismiss_reason: ' ' });
    assert.equal(noReason.statusCode, 400);
    assert.equal(fieldError(parseHtml(noReason.body), 'dismiss_reason'), 'Say why this signal is dismissed (1 to 1000 characters).');
    const dismissed = await agent.post(`${base}/signals/dismiss`, { number: '1', dismiss_reason: 'Spam, no product of ours' });
    assert.equal(dismissed.statusCode, 303);
    assert.equal(dismissed.headers.location, `${base}/signals#signal-1`);
    const again = await agent.post(`${base}/signals/dismiss`, { number: '1', dismiss_reason: 'twice' });
    assert.equal(again.statusCode, 409);
    assert.match(alertText(parseHtml(again.body)) ?? '', /^signal 1 was already triaged \(DISMISSED\)/);
    assert.equal(signalFacts((await agent.get(`${base}/signals?all=1`)).body, 1)['Dismissed because'], 'Spam, no product of ours');
    assert.equal((await registry(h, 'dismiss', 'signal.dismissed'))[0]?.actor, 'user:ana@dismiss.example');
  });

  it('merges a duplicate signal into an existing case, the case number checked beside its field', async () => {
    const h = harness();
    const { agent, base } = await withSignals(h, 'merge', ['The RCE', 'Duplicate of the RCE']);
    await h.cases.openCase('merge', { signalNumber: 1, notifiable: true });
    const noCase = await agent.post(`${base}/signals/merge`, { number: '2', into: '9' });
    assert.equal(noCase.statusCode, 400);
    assert.equal(fieldError(parseHtml(noCase.body), 'into'), 'no case with incident number 9');
    const notNumber = await agent.post(`${base}/signals/merge`, { number: '2', into: 'five' });
    assert.equal(fieldError(parseHtml(notNumber.body), 'into'), 'Give the number of the case this signal duplicates.');
    assert.equal((await agent.post(`${base}/signals/merge`, { number: '2', into: '1' })).statusCode, 303);
    const merged = one(parseHtml((await agent.get(`${base}/signals?all=1`)).body), 'article[aria-labelledby="signal-2"]');
    assert.equal(facts(merged)['Duplicate of'], 'case #1');
    assert.equal(one(merged, 'dd a').getAttribute('href'), `${base}/cases/1`);
    assert.equal((await registry(h, 'merge', 'signal.merged'))[0]?.actor, 'user:ana@merge.example');
  });

  it('attributes a signal to a product of the organisation; it stays awaiting triage', async () => {
    const h = harness();
    const { agent, base } = await withSignals(h, 'attr', ['Unknown device']);
    const noProduct = await agent.post(`${base}/signals/attribute`, { number: '1', attribute_sku: 'NOPE' });
    assert.equal(fieldError(parseHtml(noProduct.body), 'attribute_sku'), 'no product with SKU "NOPE"');
    assert.equal((await agent.post(`${base}/signals/attribute`, { number: '1', attribute_sku: 'CAM-1' })).statusCode, 303);
    const awaiting = signalFacts((await agent.get(`${base}/signals`)).body, 1);
    assert.equal(awaiting.Product, 'CAM-1');
    assert.equal(awaiting.Status, 'INCOMING');
    assert.equal((await registry(h, 'attr', 'signal.attributed'))[0]?.actor, 'user:ana@attr.example');
  });

  it('opens a case of a severe incident that is not notifiable, with the reason; an unknown kind is refused beside its field', async () => {
    const h = harness();
    const { agent, base } = await withSignals(h, 'incident', ['Leak', 'Other']);
    const form = { number: '1', kind: 'incident', reason: 'No impact on the product’s security', aware_at: '', product_sku: '' };
    assert.equal((await agent.post(`${base}/signals/open-case`, form)).statusCode, 303);
    const kase = parseHtml((await agent.get(`${base}/cases/1`)).body);
    assert.equal(facts(kase).Kind, 'severe incident');
    assert.equal(facts(kase).Notifiable, 'no: No impact on the product’s security');
    assert.equal(
      text(one(kase, '[aria-labelledby="deadlines-title"] p')),
      'This case is not notifiable: No impact on the product’s security. It has no Article 14 clocks and no reports.',
    );
    const badKind = await agent.post(`${base}/signals/open-case`, { ...form, number: '2', kind: 'rumour', notifiable: 'yes' });
    assert.equal(fieldError(parseHtml(badKind.body), 'kind'), 'Choose vulnerability (actively exploited) or incident (severe incident).');
  });

  it('refuses triage to a viewer, without the CSRF token, and for another organisation’s signal', async () => {
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

  it("saves the organisation's details every report names (owners and admins), each error beside its field", async () => {
    const h = harness();
    const { agent: analyst, base } = await routerOrganisation(h, 'details', { details: false });
    const { agent: admin } = await signedInAgent(h, 'details', 'adm@details.example', 'admin');
    const page = parseHtml((await admin.get(`${base}/organisation`)).body);
    assert.equal(text(one(formFor(page, `${base}/organisation`), 'button')), 'Save');
    const bad = await admin.post(`${base}/organisation`, {
      legal_name: 'Art GmbH',
      postal_address: 'Hauptstr. 1, Berlin',
      contact_email: 'psirt',
      member_state: 'XX',
    });
    assert.equal(bad.statusCode, 400);
    assert.equal(fieldError(parseHtml(bad.body), 'contact_email'), 'Give an e-mail address, or leave it empty.');
    assert.equal(fieldError(parseHtml(bad.body), 'member_state'), 'Choose one of the 27 Member States.');
    const details = {
      legal_name: 'Art GmbH',
      postal_address: 'Hauptstr. 1, Berlin',
      contact_email: 'psirt@art.example',
      member_state: 'DE',
    };
    assert.equal((await admin.post(`${base}/organisation`, details)).statusCode, 303);
    assert.equal((await registry(h, 'details', 'org.details_changed'))[0]?.actor, 'user:adm@details.example');
    // An analyst reads them (read-only fields; the list of Member States disabled).
    const shown = parseHtml((await analyst.get(`${base}/organisation`)).body);
    const { _csrf, ...fields } = formFields(formFor(shown, `${base}/organisation`));
    assert.deepEqual(fields, { legal_name: 'Art GmbH', postal_address: 'Hauptstr. 1, Berlin', contact_email: 'psirt@art.example' });
    assert.equal(one(shown, '#member_state option[selected]').getAttribute('value'), 'DE');
    assert.equal((await analyst.post(`${base}/organisation`, details)).statusCode, 403);
  });

  it('refuses the Article 14 actions to a viewer and without CSRF; another organisation’s case and reports answer 404', async () => {
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
    const kase = parseHtml(page.body);
    for (const path of ['/fix', '/notes', '/intermediate'])
      assert.equal(kase.querySelector(`form[action="/console/o/a14-a/cases/1${path}"]`), null, `a viewer has no ${path} form`);
    const report = await viewer.get('/console/o/a14-a/cases/1/reports/early-warning');
    assert.equal(report.statusCode, 200, 'a viewer reads the drafts');
    const buttons = [...parseHtml(report.body).querySelectorAll('button')].map((b) => text(b));
    assert.ok(!buttons.includes('Save the draft') && !buttons.includes('File the report'), buttons.join(', '));
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
      assert.ok(!r.body.includes('Their secret'));
    }
    for (const [path, form] of posts.slice(0, 6))
      assert.equal(
        (await agent.post(`/console/o/a14-a${path.replace('/cases/1', '/cases/2')}`, form)).statusCode,
        404,
        `other case ${path}`,
      );
    assert.deepEqual(await registry(h, 'a14-a', 'case.report_filed'), []);
    assert.equal((await h.cases.getCase('a14-b', 1)).fix_available_at, null);
  });

  it('closes a vulnerability still waiting for its corrective measure once its due stages are filed (its final report has no due time yet)', async () => {
    const h = harness();
    h.clock.current = new Date(START);
    const tenant = await h.tenant('wait', ['incidents:write']);
    await postIncident(h, tenant.key, { description: 'Exploited, no fix yet' });
    await h.cases.openCase('wait', { signalNumber: 1, notifiable: true, awareAt: new Date('2026-11-22T08:00:00Z') });
    const { agent } = await signedInAgent(h, 'wait', 'ana.wait@example.com', 'analyst');
    await agent.get('/console/o/wait/cases/1');
    assert.equal((await agent.post('/console/o/wait/cases/1/sent', { what: 'early-warning', at: '2026-11-22T09:00' })).statusCode, 303);
    const notYet = await agent.post('/console/o/wait/cases/1/close', {});
    assert.equal(notYet.statusCode, 409);
    assert.ok(
      alertText(parseHtml(notYet.body))?.endsWith('not yet filed: notification (pending, due 2026-11-25T08:00:00.000Z)'),
      'the waiting final report is not named',
    );
    assert.equal((await agent.post('/console/o/wait/cases/1/sent', { what: 'notification', at: '' })).statusCode, 303);
    const today = parseHtml((await agent.get('/console/o/wait/today')).body);
    assert.equal(text(one(today, '#clocks tbody td:last-child')), 'final report: waits for the fix');
    const cases = parseHtml((await agent.get('/console/o/wait/cases')).body);
    assert.equal(text(one(cases, 'tbody td:last-child')), 'final report waits for the fix');
    assert.equal(facts(parseHtml((await agent.get('/console/o/wait/cases/1/reports/final')).body)).Due, 'no due time yet');
    const early = await agent.post('/console/o/wait/cases/1/reports/final/file', { reference: 'F', filed_at: '' });
    assert.equal(early.statusCode, 409);
    assert.match(alertText(parseHtml(early.body)) ?? '', /waiting for a corrective measure: record it/);
    assert.equal((await agent.post('/console/o/wait/cases/1/close', {})).statusCode, 303);
  });

  it('edits the Member States where a product is made available; a form without the field keeps them', async () => {
    const h = harness();
    await h.tenant('mk', ['incidents:write']);
    await h.products.addProduct('mk', 'P-1', { name: 'Plug' });
    const { agent } = await signedInAgent(h, 'mk', 'adm.mk@example.com', 'admin');
    const markets = async () =>
      formFields(formFor(parseHtml((await agent.get('/console/o/mk/products/P-1/edit')).body), '/console/o/mk/products/P-1')).markets;
    assert.equal(await markets(), '');
    const base = { name: 'Plug', gtin: '', firmware_version: '', end_of_support: '' };
    const bad = await agent.post('/console/o/mk/products/P-1', { ...base, markets: 'DE, XY' });
    assert.equal(bad.statusCode, 400);
    assert.match(fieldError(parseHtml(bad.body), 'markets') ?? '', /^markets: not Member States: XY \(one of AT, BE, .*, or EU\)$/);
    assert.equal((await agent.post('/console/o/mk/products/P-1', { ...base, markets: 'de, fr' })).statusCode, 303);
    assert.equal(facts(parseHtml((await agent.get('/console/o/mk/products/P-1')).body))['Made available in'], 'DE, FR');
    assert.equal((await agent.post('/console/o/mk/products/P-1', base)).statusCode, 303, 'a form without the field keeps them');
    assert.equal(await markets(), 'DE, FR');
  });
});
