import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { attachmentsDirFor } from '../../src/disclosure/attachment-store.js';
import { redactUrl } from '../../src/http/logging.js';
import { listRegistry } from '../../src/registry/registry.service.js';
import { useHarness } from '../helpers/app.js';
import { postIncident } from '../helpers/incidents.js';
import { TEST_WEBHOOK_ENV } from '../helpers/webhooks.js';
import { followPath, Reporter } from './reporter.js';

// The public disclosure pages over HTTP as a researcher without an account uses them: policy,
// form, security.txt, a report with attachments becoming a signal in the one numbering with
// `signal.received`, the sealed identity and attachments, the follow-up link and its
// conversation, tenancy and revocation.

const POLICY = [
  '# How we handle reports',
  '',
  'Write to us *any time*. See [our advisories](https://acme.example/advisories) or [mail](mailto:psirt@acme.example).',
  '',
  '- one',
  '- two',
  '',
  '<script>alert(1)</script> [click](javascript:alert(2)) ![img](https://evil.example/x.png)',
].join('\n');

async function registryOf(h: { database: Parameters<typeof listRegistry>[0] }, orgId: string) {
  const entries = [];
  for await (const entry of listRegistry(h.database, orgId)) entries.push(entry);
  return entries;
}

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

describe('the public disclosure pages', () => {
  const harness = useHarness(TEST_WEBHOOK_ENV);

  it('answers the same 404 for a disabled organisation, an unknown one and an unknown path', async () => {
    const h = harness();
    await h.orgs.createOrg({ slug: 'quiet' });
    const r = new Reporter(h.app);
    const bodies = [];
    for (const url of [
      '/disclose/quiet',
      '/disclose/quiet/report',
      '/disclose/quiet/security.txt',
      '/disclose/nobody',
      '/disclose/nobody/security.txt',
    ]) {
      const response = await r.get(url);
      assert.equal(response.statusCode, 404, url);
      bodies.push(response.body);
    }
    assert.equal(new Set(bodies).size, 1, 'byte for byte the same page');
    const post = await r.report('quiet', { description: 'x' }, [], { open: false, csrf: 'forged' });
    assert.equal(post.statusCode, 404);
    assert.equal(post.body, bodies[0]);
    // Enabled, then disabled again: 404 once more.
    await h.disclosure.configure('quiet', { enabled: true });
    assert.equal((await r.get('/disclose/quiet')).statusCode, 200);
    await h.disclosure.configure('quiet', { enabled: false });
    assert.equal((await r.get('/disclose/quiet')).body, bodies[0]);
  });

  it('renders the policy from safe Markdown, names products by name only, and serves security.txt', async () => {
    const h = harness();
    await h.orgs.createOrg({ slug: 'acme' });
    await h.products.addProduct('acme', 'RTR-100', { name: 'Router 100' });
    await h.products.addProduct('acme', 'OLD-1', { name: 'Old Box' });
    await h.products.archiveProduct('acme', 'OLD-1');
    await h.disclosure.configure('acme', { enabled: true, policy: POLICY, acknowledgeDays: 3, preferredLanguages: 'en, de' });
    const r = new Reporter(h.app);
    const policy = await r.get('/disclose/acme');
    assert.equal(policy.statusCode, 200);
    assert.match(policy.headers['content-security-policy'] as string, /default-src 'none'/);
    assert.match(policy.body, /We acknowledge reports within 3 days/);
    assert.match(policy.body, /<h1>How we handle reports<\/h1>/);
    assert.match(policy.body, /<em>any time<\/em>/);
    assert.match(policy.body, /<a href="https:\/\/acme.example\/advisories" rel="nofollow noopener noreferrer">/);
    assert.match(policy.body, /<a href="mailto:psirt@acme.example"/);
    assert.match(policy.body, /<li>one<\/li>/);
    assert.doesNotMatch(policy.body, /<script>alert/);
    assert.match(policy.body, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
    assert.doesNotMatch(policy.body, /href="javascript:/);
    assert.doesNotMatch(policy.body, /<img/);
    assert.match(policy.body, /<li>Router 100<\/li>/);
    assert.doesNotMatch(policy.body, /RTR-100|Old Box/, 'active products, by name only');
    assert.match(policy.body, /Safe harbour/);

    const txt = await r.get('/disclose/acme/security.txt');
    assert.equal(txt.statusCode, 200);
    assert.match(txt.headers['content-type'] as string, /^text\/plain; charset=utf-8/);
    const lines = Object.fromEntries(
      txt.body
        .trim()
        .split('\n')
        .map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 2)]),
    );
    // Without PUBLIC_URL, on HOST and PORT (0.0.0.0 and 8080 by default), never the request's Host.
    assert.equal(lines.Contact, 'http://localhost:8080/disclose/acme/report');
    assert.equal(lines.Policy, 'http://localhost:8080/disclose/acme');
    assert.equal(lines.Canonical, 'http://localhost:8080/disclose/acme/security.txt');
    assert.equal(lines['Preferred-Languages'], 'en, de');
    const expires = Date.parse(lines.Expires!);
    assert.ok(expires > h.clock.now().getTime() && expires <= h.clock.now().getTime() + 366 * 86_400_000, lines.Expires);
    await assert.rejects(h.disclosure.configure('acme', { preferredLanguages: 'en; drop table' }), /language tags/);
    await assert.rejects(h.disclosure.configure('acme', { acknowledgeDays: 0 }), /1 to 90/);
  });

  it('turns a report into an INCOMING signal in the one numbering, with sealed identity and attachments, a webhook and registry entries', async () => {
    const h = harness();
    const org = await h.tenant('devices', ['incidents:write']);
    const product = await h.products.addProduct('devices', 'CAM-9', { name: 'Camera 9' });
    await h.webhooks.addEndpoint({ org: 'devices', url: 'http://127.0.0.1:9/hook', events: 'signal.received' });
    await h.disclosure.configure('devices', { enabled: true });
    assert.equal((await postIncident(h, org.key, { description: 'from the ERP' })).json().incident_number, 1);

    const r = new Reporter(h.app);
    const form = await r.get('/disclose/devices/report');
    assert.equal(form.statusCode, 200);
    assert.match(form.body, /<option value="[0-9a-f-]{36}">Camera 9<\/option>/);
    assert.doesNotMatch(form.body, /CAM-9/);
    const productId = /<option value="([0-9a-f-]{36})">Camera 9/.exec(form.body)![1]!;
    const pcap = Buffer.alloc(70_000, 7);
    const poc = Buffer.from('#!/bin/sh\necho "Ren\u00e9e proof"\n');
    const sent = await r.report(
      'devices',
      {
        product: productId,
        title: 'Auth bypass on RTSP',
        description: 'The RTSP server accepts any password.',
        cve: 'CVE-2026-40001',
        affected_versions: '1.0 to 1.4',
        how_found: 'fuzzing',
        reporter_name: 'Renée Researcher',
        reporter_contact: 'renee@research.example',
        credit: 'R. Researcher',
        website: '',
      },
      [
        { filename: 'capture.pcap', bytes: pcap },
        { filename: 'poc.sh', bytes: poc },
      ],
      { open: false },
    );
    assert.equal(sent.statusCode, 200, sent.body);
    assert.equal(sent.headers['cache-control'], 'no-store');
    assert.equal(sent.headers.location, undefined, 'no redirect carries the link');
    const follow = followPath(sent.body);
    assert.match(follow, /^\/disclose\/devices\/follow\/[A-Za-z0-9_-]{43}$/);
    const token = follow.split('/').pop()!;

    const [signal] = (await h.incidents.listSignals('devices')).filter((s) => s.source === 'disclosure');
    assert.equal(signal!.incident_number, 2, 'the next number of the same sequence');
    assert.equal(signal!.status, 'INCOMING');
    assert.equal(signal!.product_sku, 'CAM-9');
    assert.equal(signal!.cve, 'CVE-2026-40001');
    assert.equal(product.sku, 'CAM-9');

    // The reporter's identity and the attachments are sealed at rest; the token is kept as a digest.
    const row = await h.database.db
      .selectFrom('signals')
      .selectAll()
      .where('incident_number', '=', 2)
      .where('org_id', '=', org.orgId)
      .executeTakeFirstOrThrow();
    assert.match(row.reporter_name!, /^v1\./);
    assert.doesNotMatch(`${row.reporter_name}${row.reporter_contact}`, /Ren|research\.example/);
    const report = await h.database.db.selectFrom('disclosure_reports').selectAll().executeTakeFirstOrThrow();
    assert.notEqual(report.token_digest, token);
    assert.equal(report.token_digest.length, 64);
    const attachments = await h.database.db.selectFrom('disclosure_attachments').selectAll().orderBy('position').execute();
    assert.deepEqual(
      attachments.map((a) => a.size),
      [pcap.length, poc.length],
    );
    assert.doesNotMatch(attachments.map((a) => a.sealed_name).join(), /capture|poc/);
    if (h.database.dialect === 'postgres') {
      const blobs = await h.database.db.selectFrom('disclosure_blobs').selectAll().execute();
      assert.equal(blobs.length, 2);
      for (const blob of blobs) assert.equal(Buffer.from(blob.data).includes(poc.subarray(0, 12)), false);
    } else {
      const dir = attachmentsDirFor(h.config.databaseUrl, null)!;
      const stored = files(dir);
      assert.equal(stored.length, 2, 'two sealed files beside the database');
      for (const file of stored) {
        assert.equal(readFileSync(file).includes(poc.subarray(0, 12)), false, 'sealed');
        assert.equal(statSync(file).mode & 0o777, 0o600);
      }
    }
    const bytes = await h.disclosure.attachment('devices', 2, attachments[1]!.id);
    assert.deepEqual(bytes, { name: 'poc.sh', bytes: poc });

    // Registry: the signal and its arrival, never the reporter; webhook: number, SKU, source only.
    const registry = await registryOf(h, org.orgId);
    const arrival = registry.find((e) => e.action === 'disclosure.report_received')!;
    assert.equal(arrival.actor, 'disclosure');
    assert.deepEqual(JSON.parse(arrival.details), { anonymous: false, attachments: 2, incident_number: 2 });
    assert.ok(registry.some((e) => e.action === 'signal.received' && e.subject === 'signal 2'));
    const written = JSON.stringify(registry);
    assert.doesNotMatch(written, /Ren|research\.example|capture\.pcap/);
    for (const secret of [token, report.token_digest, ...attachments.map((a) => a.storage_key)])
      assert.equal(written.includes(secret), false);
    const events = await h.database.db.selectFrom('webhook_events').selectAll().where('type', '=', 'signal.received').execute();
    assert.equal(events.length, 1);
    assert.deepEqual(JSON.parse(events[0]!.payload).data, { incident_number: 2, product_sku: 'CAM-9', source: 'disclosure' });

    // The follow-up page: state and a two-way conversation; messages are registry entries without their text.
    const page = await r.get(follow);
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /Status: received/);
    assert.doesNotMatch(page.body, /Renée|renee@/, 'the page does not echo the identity');
    for (const message of ['   ', 'x'.repeat(10_001)]) {
      const refused = await r.post(follow, { message });
      assert.equal(refused.statusCode, 400);
      assert.match(refused.body, /id="message-error"[^>]*>Write a message of at most 10000 characters\./);
    }
    const answer = await r.post(follow, { message: 'Any news? Here is more detail.' });
    assert.equal(answer.statusCode, 200);
    assert.match(answer.body, /Your message was sent/);
    await h.disclosure.teamMessage('devices', 2, 'Thanks, we reproduced it.', 'user:analyst@devices.example');
    const later = await r.get(follow);
    assert.match(later.body, /Status: triaged/);
    assert.match(later.body, /Any news\? Here is more detail\./);
    assert.match(later.body, /The team, .*UTC<\/p><p class="pre">Thanks, we reproduced it\./);
    assert.doesNotMatch(later.body, /analyst@devices/, 'the reporter sees "the team", never which member');
    const messages = (await registryOf(h, org.orgId)).filter((e) => e.action === 'disclosure.message_sent');
    assert.deepEqual(
      messages.map((e) => [e.actor, JSON.parse(e.details).author]),
      [
        ['reporter', 'reporter'],
        ['user:analyst@devices.example', 'team'],
      ],
    );
    assert.doesNotMatch(JSON.stringify(messages), /news|reproduced/);

    // Another organisation's pages with this token, a changed token, a revoked link: the same 404.
    await h.orgs.createOrg({ slug: 'rival' });
    await h.disclosure.configure('rival', { enabled: true });
    const notFound = (await r.get('/disclose/nobody')).body;
    for (const url of [
      `/disclose/rival/follow/${token}`,
      `${follow.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`,
      '/disclose/devices/follow/short',
    ]) {
      const response = await r.get(url);
      assert.equal(response.statusCode, 404, url);
      assert.equal(response.body, notFound);
    }
    await r.get('/disclose/rival/report');
    assert.equal((await r.post(`/disclose/rival/follow/${token}`, { message: 'hello?' })).statusCode, 404);
    assert.deepEqual(await h.disclosure.revokeLink('devices', 2, 'cli'), { revoked: true });
    assert.equal((await r.get(follow)).body, notFound);
    await r.get('/disclose/devices/report');
    assert.equal((await r.post(follow, { message: 'still there?' })).statusCode, 404);
    assert.ok((await registryOf(h, org.orgId)).some((e) => e.action === 'disclosure.link_revoked'));
  });

  it('keeps the follow-up token out of log lines', () => {
    assert.equal(redactUrl('/disclose/acme/follow/abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG'), '/disclose/acme/follow/[redacted]');
    assert.equal(redactUrl('/disclose%2Facme%2Ffollow%2Fsecret?x=1'), '/disclose%2Facme%2Ffollow%2F[redacted]?x=1');
  });
});
