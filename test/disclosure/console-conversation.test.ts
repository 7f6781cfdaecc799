import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { listRegistry } from '../../src/registry/registry.service.js';
import { createServices } from '../../src/services.js';
import { TEST_CONSOLE_SECRET, useHarness } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
import { signedInAgent } from '../helpers/console.js';
import { postIncident } from '../helpers/incidents.js';
import { followPath, Reporter } from './reporter.js';
import { allowDirectWrites } from '../helpers/db.js';

// It moves a date directly, outside Database.transaction.
allowDirectWrites();

// Disclosure as the team works it: the settings page (owners and admins), the Conversation
// panel on the signal and on its case (identity behind "Show the reporter", attachments as
// downloads, answers, revocation), what a viewer and another organisation see, and the same
// through cra-admin.

const ANALYST = 'analyst@acme.example';

describe('disclosure in the console and cra-admin', () => {
  const harness = useHarness();

  it('lets owners configure the pages; analysts read the reporter, download, answer and open a case; viewers and others see less', async () => {
    const h = harness();
    await h.orgs.createOrg({ slug: 'acme', name: 'Acme Devices' });
    await h.orgs.createOrg({ slug: 'other' });
    await h.products.addProduct('acme', 'CAM-9', { name: 'Camera 9' });
    const owner = (await signedInAgent(h, 'acme', 'owner@acme.example', 'owner')).agent;
    const analyst = (await signedInAgent(h, 'acme', ANALYST, 'analyst')).agent;
    const viewer = (await signedInAgent(h, 'acme', 'viewer@acme.example', 'viewer')).agent;
    const spy = (await signedInAgent(h, 'other', 'spy@other.example', 'analyst')).agent;

    // Settings: owners and admins; the https warning without PUBLIC_URL; the well-known rule.
    const settings = await owner.get('/console/o/acme/disclosure');
    assert.equal(settings.statusCode, 200);
    assert.match(settings.body, /Disabled: the pages answer 404/);
    assert.match(settings.body, /PUBLIC_URL is not https/);
    assert.match(
      settings.body,
      /location = \/\.well-known\/security\.txt \{ return 301 http:\/\/localhost:80\/disclose\/acme\/security\.txt; \}/,
    );
    const badLanguages = await owner.post('/console/o/acme/disclosure', {
      enabled: 'yes',
      policy: '',
      acknowledge_days: '7',
      preferred_languages: 'english!',
    });
    assert.equal(badLanguages.statusCode, 400);
    assert.match(badLanguages.body, /id="preferred_languages-error">Give language tags separated by commas/);
    const saved = await owner.post('/console/o/acme/disclosure', {
      enabled: 'yes',
      policy: '## Scope\n\nAll *cameras*.',
      acknowledge_days: '7',
      preferred_languages: 'en, fr',
    });
    assert.equal(saved.statusCode, 200);
    assert.match(saved.body, /Disclosure settings saved/);
    const reporter = new Reporter(h.app);
    const policy = await reporter.get('/disclose/acme');
    assert.match(policy.body, /We acknowledge reports within 7 days/);
    assert.match(policy.body, /<h2>Scope<\/h2>/);
    await analyst.get('/console/o/acme/disclosure');
    assert.equal(
      (await analyst.post('/console/o/acme/disclosure', { policy: '', acknowledge_days: '1', preferred_languages: 'en' })).statusCode,
      403,
    );
    // security.txt's expiry: warned about 30 days ahead, renewed from the page.
    // (Moved close to expiry in the database: a year on the clock would end every session.)
    const soon = new Date(h.clock.now().getTime() + 20 * 86_400_000).toISOString();
    await h.database.db.updateTable('disclosure_settings').set({ expires_at: soon }).execute();
    assert.match((await owner.get('/console/o/acme/disclosure')).body, /security\.txt expires within 30 days/);
    const renewed = await owner.post('/console/o/acme/disclosure', {
      enabled: 'yes',
      policy: '## Scope\n\nAll *cameras*.',
      acknowledge_days: '7',
      preferred_languages: 'en, fr',
      renew: 'yes',
    });
    assert.doesNotMatch(renewed.body, /expires within 30 days/);

    // A report with identity and two attachments, after one from the API (number 1).
    const key = await h.keys.createKey({ org: 'acme', name: 'erp', scopes: ['incidents:write'] });
    await postIncident(h, key.secret, { description: 'from the ERP' });
    const pdf = Buffer.from('%PDF-1.4\n<script>alert(1)</script>\n');
    const html = Buffer.from('<html><script>alert(document.cookie)</script></html>');
    const sent = await reporter.report(
      'acme',
      {
        title: 'Hard-coded key',
        description: 'The firmware holds a private key.',
        reporter_name: 'Ada Finder',
        reporter_contact: 'ada@finder.example',
      },
      [
        { filename: 'report.pdf', bytes: pdf },
        { filename: 'poc <i>é.html', bytes: html },
      ],
    );
    const follow = followPath(sent.body);

    assert.match((await analyst.get('/console/o/acme/today')).body, />#2<\/a><\/td>(<td>[^<]*<\/td>){4}<td>disclosure<\/td><\/tr>/);
    const signals = await analyst.get('/console/o/acme/signals');
    assert.match(signals.body, /href="\/console\/o\/acme\/signals\/2\/conversation">Conversation with the reporter of #2</);
    assert.match(signals.body, /from disclosure/);
    const panel = await analyst.get('/console/o/acme/signals/2/conversation');
    assert.equal(panel.statusCode, 200);
    assert.match(panel.body, /Show the reporter/);
    assert.doesNotMatch(panel.body, /Ada Finder|ada@finder/, 'the identity stays behind the control');
    assert.match(panel.body, /State shown to the reporter<\/dt><dd>received/);
    const links = [
      ...panel.body.matchAll(/href="(\/console\/o\/acme\/signals\/2\/attachments\/[0-9a-f-]{36})" download>Download ([^<]+)</g),
    ];
    assert.deepEqual(
      links.map((m) => m[2]),
      ['report.pdf', 'poc &lt;i&gt;é.html'],
    );
    const keys = await h.database.db.selectFrom('disclosure_attachments').select('storage_key').execute();
    for (const { storage_key } of keys) assert.equal(panel.body.includes(storage_key), false, 'storage keys never leave the store');
    const shown = await analyst.post('/console/o/acme/signals/2/conversation/reporter', {});
    assert.equal(shown.statusCode, 200);
    assert.match(shown.body, /<dt>Reporter<\/dt><dd>Ada Finder<\/dd>/);
    assert.match(shown.body, /<dt>Contact<\/dt><dd>ada@finder\.example<\/dd>/);
    for (const [i, expected] of [pdf, html].entries()) {
      const download = await analyst.get(links[i]![1]!);
      assert.equal(download.statusCode, 200);
      assert.equal(download.headers['content-type'], 'application/octet-stream');
      assert.match(String(download.headers['content-disposition']), /^attachment; filename="/);
      assert.equal(download.headers['x-content-type-options'], 'nosniff');
      assert.deepEqual(download.rawPayload, expected, 'the bytes as sent');
    }
    assert.equal(
      (await analyst.get(links[1]![1]!)).headers['content-disposition'],
      `attachment; filename="poc <i>_.html"; filename*=UTF-8''poc%20%3Ci%3E%C3%A9.html`,
    );

    // The analyst answers; the reporter reads it and answers back.
    const answered = await analyst.post('/console/o/acme/signals/2/conversation/messages', { message: 'Confirmed, fix in 2.1.' });
    assert.equal(answered.statusCode, 303);
    assert.equal(answered.headers.location, '/console/o/acme/signals/2/conversation#conversation');
    assert.match((await reporter.get(follow)).body, /Confirmed, fix in 2\.1\./);
    await reporter.post(follow, { message: 'Great, thanks.' });
    const empty = await analyst.post('/console/o/acme/signals/2/conversation/messages', { message: '  ' });
    assert.equal(empty.statusCode, 400);
    assert.match(empty.body, /id="message-error">Write a message/);

    // A case from the signal carries the panel; answers from there go back to the case.
    await analyst.get('/console/o/acme/signals');
    const opened = await analyst.post('/console/o/acme/signals/open-case', {
      number: '2',
      notifiable: 'yes',
      aware_at: '',
      product_sku: 'CAM-9',
    });
    assert.equal(opened.statusCode, 303, opened.body);
    const kase = await analyst.get('/console/o/acme/cases/2');
    assert.match(kase.body, /Conversation with the reporter/);
    assert.match(kase.body, /Great, thanks\./);
    assert.match(kase.body, /name="back" value="case"/);
    const fromCase = await analyst.post('/console/o/acme/signals/2/conversation/messages', { message: 'Case opened.', back: 'case' });
    assert.equal(fromCase.headers.location, '/console/o/acme/cases/2#conversation');
    assert.match((await reporter.get(follow)).body, /Status: case opened/);

    // A viewer reads the messages, never the identity or an attachment (404).
    const seen = await viewer.get('/console/o/acme/signals/2/conversation');
    assert.equal(seen.statusCode, 200);
    assert.match(seen.body, /Case opened\./);
    assert.doesNotMatch(seen.body, /Show the reporter|attachments\/|Ada Finder|Revoke/);
    assert.doesNotMatch((await viewer.get('/console/o/acme/cases/2')).body, /Show the reporter|attachments\//);
    assert.equal((await viewer.post('/console/o/acme/signals/2/conversation/reporter', {})).statusCode, 404);
    assert.equal((await viewer.get(links[0]![1]!)).statusCode, 404);
    assert.equal((await viewer.post('/console/o/acme/signals/2/conversation/messages', { message: 'hi' })).statusCode, 404);

    // Another organisation, another source, another id: as if it did not exist.
    assert.equal((await spy.get('/console/o/acme/signals/2/conversation')).statusCode, 404);
    assert.equal((await spy.get(links[0]![1]!.replace('/o/acme/', '/o/other/'))).statusCode, 404);
    assert.equal((await analyst.get('/console/o/acme/signals/1/conversation')).statusCode, 404, 'an API signal has no conversation');
    assert.equal((await analyst.get('/console/o/acme/signals/2/attachments/00000000-0000-4000-8000-000000000000')).statusCode, 404);

    // Revoking the link: the reporter's page is gone; the registry has every step, never a text or identity.
    const revoked = await analyst.post('/console/o/acme/signals/2/conversation/revoke', {});
    assert.match(revoked.body, /The reporter&#39;s link is revoked\.|The reporter's link is revoked\./);
    assert.equal((await reporter.get(follow)).statusCode, 404);
    const org = await h.orgs.requireOrg('acme');
    const entries = [];
    for await (const entry of listRegistry(h.database, org.id)) entries.push(entry);
    const actions = entries.filter((e) => e.action.startsWith('disclosure.')).map((e) => `${e.action} ${e.actor}`);
    assert.deepEqual(actions, [
      'disclosure.settings_changed user:owner@acme.example',
      'disclosure.settings_changed user:owner@acme.example',
      'disclosure.report_received disclosure',
      `disclosure.identity_read user:${ANALYST}`,
      `disclosure.message_sent user:${ANALYST}`,
      'disclosure.message_sent reporter',
      `disclosure.message_sent user:${ANALYST}`,
      `disclosure.link_revoked user:${ANALYST}`,
    ]);
    assert.doesNotMatch(JSON.stringify(entries), /Ada|finder\.example|Confirmed|Great, thanks|report\.pdf/);
  });

  it('does the same with cra-admin: enable, policy, show --reporter, message, revoke-link, disable', async () => {
    const h = harness();
    const env = { DATABASE_URL: h.config.databaseUrl, CONSOLE_SECRET: TEST_CONSOLE_SECRET };
    await h.orgs.createOrg({ slug: 'beta' });
    const enable = await runCli(['disclosure', 'enable', '--org', 'beta', '--acknowledge-days', '4'], env);
    assert.equal(enable.code, 0, enable.stderr);
    assert.match(enable.stdout, /disclosure of beta: enabled\nacknowledge within 4 days; languages en/);
    const dir = mkdtempSync(join(tmpdir(), 'cra-policy-'));
    writeFileSync(join(dir, 'policy.md'), '# Beta policy\n\nMail [us](mailto:sec@beta.example).\n');
    const policy = await runCli(['disclosure', 'policy', '--org', 'beta', '--file', join(dir, 'policy.md'), '--json'], env);
    assert.equal(policy.code, 0, policy.stderr);
    assert.equal(policy.json().policy_chars, 51);
    const reporter = new Reporter(h.app);
    assert.match((await reporter.get('/disclose/beta')).body, /<h1>Beta policy<\/h1>/);
    const sent = await reporter.report('beta', { description: 'XSS in the admin UI', reporter_contact: 'anon@mail.example' });
    const follow = followPath(sent.body);

    const show = await runCli(['signal', 'show', '--org', 'beta', '1', '--reporter'], env);
    assert.equal(show.code, 0, show.stderr);
    assert.match(show.stdout, /signal 1 \(INCOMING\) from disclosure/);
    assert.match(show.stdout, /reporter: anonymous\ncontact: anon@mail\.example/);
    const plain = await runCli(['signal', 'show', '--org', 'beta', '1', '--json'], env);
    assert.equal(plain.json().reporter, undefined, 'without --reporter, no identity');
    assert.doesNotMatch(plain.stdout, /anon@mail/);
    const list = await runCli(['signal', 'list', '--org', 'beta', '--json'], env);
    assert.doesNotMatch(list.stdout, /anon@mail|reporter/);
    const message = await runCli(['signal', 'message', '--org', 'beta', '1', '--text', 'We are on it.'], env);
    assert.equal(message.code, 0, message.stderr);
    assert.match((await reporter.get(follow)).body, /We are on it\./);
    const revoke = await runCli(['signal', 'revoke-link', '--org', 'beta', '1'], env);
    assert.equal(revoke.code, 0);
    assert.match(revoke.stdout, /the reporter's link of signal 1 is revoked/);
    assert.match((await runCli(['signal', 'revoke-link', '--org', 'beta', '1'], env)).stdout, /already revoked/);
    assert.equal((await reporter.get(follow)).statusCode, 404);

    // Bad input: clear errors, usage errors exit 2.
    const days = await runCli(['disclosure', 'enable', '--org', 'beta', '--acknowledge-days', '0'], env);
    assert.equal(days.code, 2);
    assert.match(days.stderr, /expected a whole number of days from 1 to 90/);
    const missing = await runCli(['disclosure', 'policy', '--org', 'beta', '--file', join(dir, 'nope.md')], env);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /cannot read .*nope\.md: ENOENT/);
    const key = await h.keys.createKey({ org: 'beta', name: 'erp', scopes: ['incidents:write'] });
    await postIncident(h, key.secret, { description: 'API signal' });
    const notDisclosed = await runCli(['signal', 'show', '--org', 'beta', '2', '--reporter'], env);
    assert.equal(notDisclosed.code, 1);
    assert.match(notDisclosed.stderr, /no disclosure report 2/);
    // Without CONSOLE_SECRET (PostgreSQL without it): nothing sealed can be read, nothing enabled.
    const unsealed = createServices({ database: h.database, clock: h.clock.now });
    await assert.rejects(unsealed.disclosure.readIdentity('beta', 1), /disclosure needs CONSOLE_SECRET/);
    await assert.rejects(unsealed.disclosure.configure('beta', { enabled: true }), /disclosure needs CONSOLE_SECRET/);
    await unsealed.close();

    const disable = await runCli(['disclosure', 'disable', '--org', 'beta'], env);
    assert.equal(disable.code, 0);
    assert.equal((await reporter.get('/disclose/beta')).statusCode, 404);
  });
});
