import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { buildHarness, type Harness, type Tenant, suiteTeardown } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
import { csafErrors } from '../helpers/csaf.js';
import { postIncident } from '../helpers/incidents.js';

// Article 14 end to end through `cra-admin` (its program in process, test/helpers/cli.ts):
// triage, a vulnerability case through every stage (early warning on time, notification
// late, an intermediate report the CSIRT asked for, the final report after the fix), the CSAF
// advisory checked against the official schema, and the evidence bundle checked against the
// registry. The CLI reads the real clock, so the signals are received with the harness clock set
// to the past and every instant below is relative to the real now.

const H = 3_600_000;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Canonical JSON written here independently of src/: keys sorted at every level. */
function canonical(value: unknown): string {
  const sort = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sort)
      : v !== null && typeof v === 'object'
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, sort((v as Record<string, unknown>)[k])]),
          )
        : v;
  return JSON.stringify(sort(value));
}

const cyclonedx = (version: string) =>
  Buffer.from(
    JSON.stringify({
      bomFormat: 'CycloneDX',
      specVersion: '1.5',
      version: 1,
      metadata: { component: { type: 'firmware', name: 'Router 100', version } },
      components: [{ type: 'library', name: 'openssl', version: '3.0.13', purl: 'pkg:generic/openssl@3.0.13' }],
    }),
  );

describe('cra-admin: Article 14 end to end', () => {
  let h: Harness;
  let acme: Tenant;
  let env: Record<string, string>;
  const teardown = suiteTeardown();
  const real = Date.now();
  const awareAt = new Date(real - 90 * H);
  const t = (hoursAfterAwareness: number) => new Date(awareAt.getTime() + hoursAfterAwareness * H).toISOString();
  const cli = (...args: string[]) => runCli(args, env);
  /** `case <command> --org acme --number 1 …`: the case this suite takes through every stage. */
  const case1 = (command: string, ...rest: string[]) => ['case', command, '--org', 'acme', '--number', '1', ...rest];
  const json = async (...args: string[]) => {
    const res = await cli(...args, '--json');
    assert.equal(res.code, 0, `${args.join(' ')}: ${res.stderr}`);
    return res.json();
  };
  const fails = async (pattern: RegExp, ...args: string[]) => {
    const res = await cli(...args);
    assert.equal(res.code, 1, `${args.join(' ')} should fail: ${res.stdout}`);
    assert.equal(res.stdout, '');
    assert.match(res.stderr, pattern);
    return res.stderr;
  };
  const stages = async () =>
    (await json('case', 'list', '--org', 'acme'))
      .find((c: { incident_number: number }) => c.incident_number === 1)
      .stages.map((s: { stage: string; seq: number; state: string }) => `${s.stage}${s.seq ? s.seq : ''}:${s.state}`);

  before(async () => {
    h = await buildHarness(teardown);
    env = { DATABASE_URL: h.config.databaseUrl };
    h.clock.current = new Date(awareAt.getTime() - 10 * H);
    acme = await h.tenant('acme', ['incidents:write', 'products:write']);
    await h.products.addProduct('acme', 'RTR-100', { name: 'Router 100', firmwareVersion: '2.4.1' });
    // Release 2.4.1 has an SBOM before awareness (revision 2 replaces 1); 2.5.0 comes only afterwards.
    await h.sbom.ingestSbom({ orgId: acme.orgId, sku: 'RTR-100', bytes: cyclonedx('2.4.1'), actor: 'test' });
    h.clock.advance(H);
    // The same release again, as another document (a trailing newline changes the digest).
    await h.sbom.ingestSbom({
      orgId: acme.orgId,
      sku: 'RTR-100',
      bytes: Buffer.concat([cyclonedx('2.4.1'), Buffer.from('\n')]),
      actor: 'test',
    });
    h.clock.advance(H);
    await postIncident(h, acme.key, {
      description: 'Router 100 httpd RCE exploited in the wild\nDetails follow',
      sku: 'RTR-100',
      cve: 'CVE-2026-12345',
    });
    await postIncident(h, acme.key, { description: 'Same RCE, reported again', sku: 'RTR-100', cve: 'CVE-2026-12346' });
    await postIncident(h, acme.key, { description: 'Spam' });
    await postIncident(h, acme.key, { description: 'Camera firmware question' });
    h.clock.current = new Date(awareAt.getTime() + 2 * H);
    await h.sbom.ingestSbom({ orgId: acme.orgId, sku: 'RTR-100', bytes: cyclonedx('2.5.0'), actor: 'test' });
  });

  it('org set and product markets carry the data the reports need; bad codes are refused', async () => {
    const org = await json(
      'org',
      'set',
      'acme',
      '--legal-name',
      'Acme Devices GmbH',
      '--address',
      'Hauptstraße 1, 10115 Berlin',
      '--contact-email',
      'psirt@acme.example',
      '--member-state',
      'de',
    );
    assert.deepEqual([org.legal_name, org.member_state, org.intake_mode], ['Acme Devices GmbH', 'DE', 'signal']);
    await fails(/one of the 27/, 'org', 'set', 'acme', '--member-state', 'UK');
    await fails(/not an e-mail address/, 'org', 'set', 'acme', '--contact-email', 'psirt');
    const product = await json('product', 'update', '--org', 'acme', '--sku', 'RTR-100', '--markets', 'DE,fr');
    assert.deepEqual(product.markets, ['DE', 'FR']);
    await fails(/not Member States: XX/, 'product', 'update', '--org', 'acme', '--sku', 'RTR-100', '--markets', 'DE,XX');
  });

  it('triage: open a case, merge a duplicate, dismiss with a reason, attribute; never twice', async () => {
    const opened = await json(
      'case',
      'open',
      '--org',
      'acme',
      '--signal',
      '1',
      '--notifiable',
      '--kind',
      'vulnerability',
      '--aware-at',
      awareAt.toISOString(),
    );
    assert.deepEqual([opened.kind, opened.notifiable, opened.notifiable_reason], ['vulnerability', true, null]);
    const merged = await json('signal', 'merge', '--org', 'acme', '--signal', '2', '--into', '1');
    assert.deepEqual([merged.status, merged.merged_into], ['MERGED', 1]);
    const dismissed = await json('signal', 'dismiss', '--org', 'acme', '--signal', '3', '--reason', 'spam');
    assert.deepEqual([dismissed.status, dismissed.triage_reason], ['DISMISSED', 'spam']);
    await fails(/signal 3 was already triaged \(DISMISSED\)/, 'case', 'open', '--org', 'acme', '--signal', '3');
    await fails(
      /signal 2 was already triaged \(MERGED into case 1\)/,
      'signal',
      'dismiss',
      '--org',
      'acme',
      '--signal',
      '2',
      '--reason',
      'x',
    );
    await fails(/signal 1 was already triaged \(CASE_OPENED\)/, 'signal', 'merge', '--org', 'acme', '--signal', '1', '--into', '1');
    await fails(/needs --reason/, 'case', 'open', '--org', 'acme', '--signal', '4', '--not-notifiable');
    assert.deepEqual(
      (await json('signal', 'list', '--org', 'acme', '--unattributed')).map((s: { incident_number: number }) => s.incident_number),
      [3, 4],
    );
    const attributed = await json('signal', 'attribute', '--org', 'acme', '--signal', '4', '--sku', 'RTR-100');
    assert.equal(attributed.product_sku, 'RTR-100');
    assert.deepEqual(
      (await json('signal', 'list', '--org', 'acme', '--unattributed')).map((s: { incident_number: number }) => s.incident_number),
      [3],
    );
    const quiet = await json(
      'case',
      'open',
      '--org',
      'acme',
      '--signal',
      '4',
      '--kind',
      'incident',
      '--not-notifiable',
      '--reason',
      'a support question, no incident',
    );
    assert.deepEqual(
      [quiet.kind, quiet.notifiable, quiet.notifiable_reason, quiet.stages],
      ['incident', false, 'a support question, no incident', []],
    );
    const actions = (await json('registry', 'list', '--org', 'acme')).map((e: { action: string }) => e.action);
    for (const a of ['signal.merged', 'signal.dismissed', 'signal.attributed', 'case.opened']) assert.ok(actions.includes(a), a);
  });

  it('the early warning is pre-filled from what the platform knows and filed on time', async () => {
    const draft = await json(...case1('report'), '--stage', 'early-warning');
    assert.deepEqual(draft.missing, []);
    assert.equal(draft.fields.manufacturer_name, 'Acme Devices GmbH');
    assert.equal(draft.fields.member_state, 'DE');
    assert.deepEqual(draft.fields.markets, ['DE', 'FR']);
    assert.deepEqual(draft.fields.affected_versions, ['2.4.1'], 'the releases known at awareness');
    assert.deepEqual(draft.fields.cve_ids, ['CVE-2026-12345', 'CVE-2026-12346'], 'the CVEs of the signal and of its duplicate');
    assert.equal(draft.fields.aware_at, awareAt.toISOString());
    assert.equal(draft.recipient, 'the CSIRT designated as coordinator of DE, and ENISA');
    const filed = await json(
      ...case1('file'),
      '--stage',
      'early-warning',
      '--reference',
      'SRP-EW-1',
      '--at',
      t(20),
      '--by',
      'alice@acme.example',
    );
    assert.equal(filed.state, 'met');
    assert.equal(filed.filed.srp_reference, 'SRP-EW-1');
    assert.equal(filed.filed.filed_by, 'alice@acme.example');
    await fails(/already filed/, ...case1('file'), '--stage', 'early-warning', '--reference', 'again');
    await fails(/a filed report is frozen/, ...case1('report'), '--stage', 'early-warning', '--set', 'title=changed');
  });

  it('the notification: filing names every missing field (exit 1), then goes through, late', async () => {
    const stderr = await fails(
      /missing required fields: nature, corrective_measures, user_measures, tlp$/m,
      ...case1('file'),
      '--stage',
      'notification',
      '--reference',
      'SRP-N-1',
      '--at',
      t(80),
    );
    assert.match(stderr, /cannot file the notification of case 1/);
    await fails(
      /tlp: "BLUE" is not one of CLEAR, GREEN, AMBER, AMBER\+STRICT, RED/,
      ...case1('report'),
      '--stage',
      'notification',
      '--set',
      'tlp=BLUE',
    );
    const draft = await json(
      ...case1('report'),
      '--stage',
      'notification',
      '--set',
      'nature=Unauthenticated command injection in the web interface, exploited to install a botnet',
      '--set',
      'corrective_measures=Firmware fix in development; exploit traffic blocked at the update server',
      '--set',
      'user_measures=Disable remote administration until firmware 2.4.3 is installed',
      '--set',
      'tlp=amber',
    );
    assert.deepEqual(draft.missing, []);
    assert.equal(draft.fields.tlp, 'AMBER');
    const filed = await json(...case1('file'), '--stage', 'notification', '--reference', 'SRP-N-1', '--at', t(80));
    assert.equal(filed.state, 'late', 'filed 8 h after the 72 h deadline');
    const text = await cli(...case1('report-text'), '--stage', 'notification');
    assert.equal(text.code, 0);
    assert.match(text.stdout, /^To: the CSIRT designated as coordinator of DE, and ENISA$/m);
    assert.match(text.stdout, /^Filed: .*, SRP reference SRP-N-1$/m);
    assert.ok(
      text.stdout.indexOf('Manufacturer: legal name') < text.stdout.indexOf('General nature of the exploit') &&
        text.stdout.indexOf('General nature') < text.stdout.indexOf('Sensitivity of the information'),
    );
  });

  it('an intermediate report the CSIRT asked for: overdue, counted by the score, refused before awareness, filed late', async () => {
    const requested = await json(...case1('intermediate-requested'), '--due', t(85));
    assert.deepEqual([requested.seq, requested.due, requested.state], [1, t(85), 'overdue']);
    assert.deepEqual(await stages(), ['early_warning:met', 'notification:late', 'intermediate1:overdue', 'final:waiting']);
    const explained = await json('score', 'explain', '--org', 'acme');
    const missed = explained.breakdown.rules.find((r: { rule: number }) => r.rule === 2).inputs.missed;
    assert.deepEqual(
      missed.map((m: { deadline: string; seq?: number }) => [m.deadline, m.seq ?? 0]),
      [
        ['full_notification', 0],
        ['intermediate_report', 1],
      ],
    );
    const text = await cli('score', 'explain', '--org', 'acme');
    assert.match(text.stdout, /intermediate_report/);
    await json(...case1('report'), '--stage', 'intermediate', '--set', 'status_update=Fix in QA; no new exploitation seen');
    await fails(/before the case's awareness time/, ...case1('file'), '--stage', 'intermediate', '--reference', 'SRP-I-1', '--at', t(-1));
    const filed = await json(...case1('file'), '--stage', 'intermediate', '--reference', 'SRP-I-1', '--at', t(86));
    assert.equal(filed.state, 'late');
  });

  it('the final report waits for the fix, then is due 14 days after it; the case closes once it is filed', async () => {
    await fails(/waiting for a corrective measure/, ...case1('file'), '--stage', 'final', '--reference', 'SRP-F-1');
    const fixed = await json(...case1('fix-available'), '--at', t(60), '--description', 'Firmware 2.4.3');
    assert.equal(fixed.fix_available_at, t(60));
    assert.deepEqual(await stages(), ['early_warning:met', 'notification:late', 'intermediate1:late', 'final:pending']);
    assert.equal(fixed.stages.at(-1).due, t(60 + 14 * 24));
    await fails(/cannot close: not yet filed: final report \(pending, due /, ...case1('close'));
    const file = join(tmpdir(), `final-${process.pid}.json`);
    writeFileSync(
      file,
      JSON.stringify({
        description: 'Command injection in the httpd CGI handler',
        severity: 'critical (CVSS 9.8)',
        impact: 'Full control of the router',
        corrective_measures: 'Firmware 2.4.3 validates the input',
        user_measures: 'Install firmware 2.4.3',
        tlp: 'CLEAR',
      }),
    );
    const draft = await json(...case1('report'), '--stage', 'final', '--from-file', file);
    assert.deepEqual(draft.missing, []);
    assert.equal(draft.fields.remediation, 'Firmware 2.4.3', 'pre-filled from the fix');
    assert.equal(draft.fields.remediation_available_at, t(60));
    const filed = await json(...case1('file'), '--stage', 'final', '--reference', 'SRP-F-1');
    assert.equal(filed.state, 'met');
    const closed = await json(...case1('close'));
    assert.equal(closed.status, 'closed');
  });

  it('case advisory: a CSAF 2.0 security advisory valid against the official schema; publication recorded', async () => {
    const res = await cli(...case1('advisory'));
    assert.equal(res.code, 0, res.stderr);
    const advisory = JSON.parse(res.stdout);
    assert.deepEqual(await csafErrors(advisory), []);
    assert.deepEqual(
      advisory.vulnerabilities.map((v: { cve: string }) => v.cve),
      ['CVE-2026-12345', 'CVE-2026-12346'],
    );
    assert.equal(advisory.document.notes[1].text, 'Install firmware 2.4.3', 'the measures users can take, from the final report');
    const published = await json(
      ...case1('advisory'),
      '--published-url',
      'https://acme.example/psirt/acme-case-1.json',
      '--published-at',
      t(70),
    );
    assert.equal(published.document.tracking.initial_release_date, t(70));
    assert.deepEqual(await csafErrors(published), []);
  });

  it('case export: a bundle whose hashes an auditor can recompute and find in the verified registry', async () => {
    const res = await cli(...case1('export'));
    assert.equal(res.code, 0, res.stderr);
    const bundle = JSON.parse(res.stdout);
    assert.equal(bundle.format, 'cra-case-evidence/1');
    assert.equal(bundle.case.status, 'closed');
    assert.deepEqual(bundle.reports.map((r: { stage: string }) => r.stage).sort(), [
      'early_warning',
      'final',
      'intermediate',
      'notification',
    ]);
    // Every entry's hash recomputed from the bundle alone.
    for (const e of bundle.registry.entries) {
      const body = canonical({
        org_id: e.org_id,
        seq: e.seq,
        at: e.at,
        actor: e.actor,
        action: e.action,
        subject: e.subject,
        details: JSON.parse(e.details),
        prev_hash: e.prev_hash,
      });
      assert.equal(sha256(e.prev_hash + body), e.hash, `entry ${e.seq}`);
    }
    // … and found, seq by seq, in the organisation's chain, which verifies up to the head named in the bundle.
    const chain = await json('registry', 'list', '--org', 'acme');
    for (const e of bundle.registry.entries) assert.equal(chain.find((c: { seq: number }) => c.seq === e.seq).hash, e.hash);
    assert.deepEqual(bundle.registry.chain_head, { seq: chain.at(-1).seq, hash: chain.at(-1).hash });
    assert.deepEqual(await json('registry', 'verify', '--org', 'acme'), { ok: true, entries: chain.length });
    assert.deepEqual(bundle.registry.verification, { ok: true, entries: chain.length });
    // Every filed report: the SHA-256 of the content as filed is the one in its registry entry.
    for (const r of bundle.reports) {
      assert.equal(sha256(r.content_json), r.content_sha256);
      const entry = bundle.registry.entries.find(
        (e: { action: string; details: string }) =>
          e.action === 'case.report_filed' && JSON.parse(e.details).content_sha256 === r.content_sha256,
      );
      assert.ok(entry, `the filing of ${r.stage} is in the registry`);
      assert.equal(JSON.parse(r.content_json).srp_reference, r.srp_reference);
    }
    assert.ok(
      bundle.timeline.some((e: { action: string }) => e.action === 'signal.merged'),
      'the merged duplicate is in the timeline',
    );
    assert.deepEqual(
      bundle.sbom_revisions_at_awareness.map((r: { release_version: string; revision: number }) => [r.release_version, r.revision]),
      [['2.4.1', 2]],
      'the newest revision of each release ingested before awareness',
    );
  });

  it('the legacy early-warning / notify commands still record a send, without content, and say so', async () => {
    await postIncident(h, acme.key, { description: 'Older case entered after the fact', sku: 'RTR-100' });
    await json('case', 'open', '--org', 'acme', '--signal', '5', '--notifiable', '--aware-at', t(0));
    const warned = await json('case', 'early-warning', '--org', 'acme', '--number', '5', '--at', t(10));
    assert.equal(warned.early_warning_sent_at, t(10));
    assert.equal(warned.stages[0].state, 'met');
    const entry = (await json('registry', 'list', '--org', 'acme')).at(-1);
    assert.equal(entry.action, 'case.early_warning_recorded');
    assert.equal(entry.details.without_content, true);
    const report = await json('case', 'report', '--org', 'acme', '--number', '5', '--stage', 'early-warning');
    assert.equal(report.filed.without_content, true);
    await fails(/already filed/, 'case', 'file', '--org', 'acme', '--number', '5', '--stage', 'early-warning', '--reference', 'X');
  });
});
