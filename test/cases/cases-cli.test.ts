import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { buildHarness, type Harness, type Tenant, suiteTeardown } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
import { postIncident } from '../helpers/incidents.js';

// cra-admin signal / case / score on the test database (its program in process,
// test/helpers/cli.ts). The CLI reads the real clock, so the harness clock is set to it.

const H = 3_600_000;

describe('cra-admin signal, case and score', () => {
  let h: Harness;
  let acme: Tenant;
  let env: Record<string, string>;
  const teardown = suiteTeardown();
  const cli = (...args: string[]) => runCli(args, env);
  const json = async (...args: string[]) => {
    const res = await cli(...args, '--json');
    assert.equal(res.code, 0, res.stderr);
    assert.equal(res.stderr, '');
    return res.json();
  };
  const failsWith = async (code: number, pattern: RegExp, ...args: string[]) => {
    const res = await cli(...args, '--json');
    assert.equal(res.code, code, `${args.join(' ')}: ${res.stdout} ${res.stderr}`);
    assert.equal(res.stdout, '', 'nothing on stdout on failure');
    assert.match(res.stderr, pattern);
  };

  before(async () => {
    h = await buildHarness(teardown);
    env = { DATABASE_URL: h.config.databaseUrl };
    h.clock.current = new Date(Date.now() - 50 * H);
    acme = await h.tenant('acme', ['incidents:write']);
    await h.products.addProduct('acme', 'RTR-2', { name: 'Router', gtin: '4006381333931' });
    await postIncident(h, acme.key, { description: 'Router RCE\nwith detail', sku: 'RTR-2', cve: 'CVE-2026-1111' });
    h.clock.advance(H);
    await postIncident(h, acme.key, { description: 'Unknown device', title: 'Mystery', sku: 'NOPE' });
    h.clock.advance(H);
    await postIncident(h, acme.key, { description: 'By GTIN', gtin: '04006381333931' });
  });

  it('signal list prints every signal, --unattributed only those without product', async () => {
    const all = await json('signal', 'list', '--org', 'acme');
    assert.deepEqual(
      all.map((s: { incident_number: number }) => s.incident_number),
      [1, 2, 3],
    );
    assert.deepEqual(
      all.map((s: { product_sku: string | null }) => s.product_sku),
      ['RTR-2', null, 'RTR-2'],
    );
    assert.equal(all[0].status, 'INCOMING');
    assert.equal(all[0].cve, 'CVE-2026-1111');
    assert.match(all[0].source, /^api:key-/);
    const signalKeys = 'id incident_number status received_at source title description cve sku gtin product_sku triage_reason merged_into';
    assert.equal(Object.keys(all[0]).join(' '), signalKeys, 'SignalSchema, in the order the CLI always printed; never the reporter');
    const unattributed = await json('signal', 'list', '--org', 'acme', '--unattributed');
    assert.deepEqual(
      unattributed.map((s: { incident_number: number }) => s.incident_number),
      [2],
    );
    const text = await cli('signal', 'list', '--org', 'acme');
    assert.equal(text.code, 0);
    assert.match(text.stdout, /incident_number\s+status/);
    assert.match(text.stdout, /Mystery/);
  });

  it('case open prints exactly the case as one JSON document, and refuses a second one', async () => {
    const awareAt = new Date(Date.now() - 30 * H);
    const res = await cli(
      'case',
      'open',
      '--org',
      'acme',
      '--signal',
      '1',
      '--notifiable',
      '--aware-at',
      awareAt.toISOString(),
      '--note',
      'confidential',
      '--json',
    );
    assert.equal(res.code, 0, res.stderr);
    const opened = JSON.parse(res.stdout);
    assert.equal(res.stdout.trim(), JSON.stringify(opened, null, 2), 'one document and nothing else');
    assert.equal(opened.incident_number, 1);
    assert.equal(opened.title, 'Router RCE');
    assert.equal(opened.product_sku, 'RTR-2');
    assert.equal(opened.notifiable, true);
    assert.equal(opened.status, 'open');
    assert.equal(opened.aware_at, awareAt.toISOString());
    assert.equal(opened.early_warning_deadline, new Date(awareAt.getTime() + 24 * H).toISOString());
    assert.equal(opened.full_notification_deadline, new Date(awareAt.getTime() + 72 * H).toISOString());
    assert.ok(!('notes' in opened));
    await failsWith(1, /already has a case/, 'case', 'open', '--org', 'acme', '--signal', '1');
  });

  it('case open: defaults, --product and --title; errors exit 1, usage errors exit 2', async () => {
    const opened = await json('case', 'open', '--org', 'acme', '--signal', '2', '--product', 'RTR-2', '--title', 'Chosen');
    assert.equal(opened.product_sku, 'RTR-2');
    assert.equal(opened.title, 'Chosen');
    assert.equal(opened.notifiable, false);
    assert.ok(Math.abs(Date.parse(opened.aware_at) - Date.now()) < 60_000, 'aware-at defaults to now');
    await failsWith(1, /no signal with incident number 99/, 'case', 'open', '--org', 'acme', '--signal', '99');
    await failsWith(1, /no product with SKU "NOPE"/, 'case', 'open', '--org', 'acme', '--signal', '3', '--product', 'NOPE');
    await failsWith(1, /no organisation/, 'case', 'open', '--org', 'ghost', '--signal', '3');
    await failsWith(
      1,
      /future/,
      'case',
      'open',
      '--org',
      'acme',
      '--signal',
      '3',
      '--aware-at',
      new Date(Date.now() + 24 * H).toISOString(),
    );
    await failsWith(2, /incident number/, 'case', 'open', '--org', 'acme', '--signal', 'abc');
    await failsWith(2, /RFC 3339/, 'case', 'open', '--org', 'acme', '--signal', '3', '--aware-at', 'yesterday');
    await failsWith(2, /required option/, 'case', 'open', '--org', 'acme');
  });

  it('case early-warning, notify and close record what was sent when', async () => {
    const [first] = await json('case', 'list', '--org', 'acme');
    const sentAt = new Date(Date.parse(first.aware_at) + 25 * H).toISOString();
    const warned = await json('case', 'early-warning', '--org', 'acme', '--number', '1', '--at', sentAt);
    assert.equal(warned.early_warning_sent_at, sentAt);
    const text = await cli('case', 'notify', '--org', 'acme', '--number', '1');
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /case 1: notification sent .* \(on time, due /);
    await failsWith(1, /already recorded/, 'case', 'early-warning', '--org', 'acme', '--number', '1');
    await failsWith(1, /no case with incident number 3/, 'case', 'notify', '--org', 'acme', '--number', '3');
    const closed = await json('case', 'close', '--org', 'acme', '--number', '1');
    assert.equal(closed.status, 'closed');
    await failsWith(1, /already closed/, 'case', 'close', '--org', 'acme', '--number', '1');
    const listed = await json('case', 'list', '--org', 'acme');
    assert.deepEqual(
      listed.map((c: { incident_number: number; status: string }) => [c.incident_number, c.status]),
      [
        [1, 'closed'],
        [2, 'open'],
      ],
    );
    assert.equal(listed[0].early_warning_sent_at, sentAt);
    assert.ok(listed[0].notification_sent_at);
  });

  it('score explain prints the breakdown (and --json the score with its rules)', async () => {
    const explained = await json('score', 'explain', '--org', 'acme');
    assert.deepEqual(Object.keys(explained).sort(), ['breakdown', 'score']);
    assert.deepEqual(
      explained.breakdown.rules.map((r: { rule: number }) => r.rule),
      [1, 2, 3, 4, 5],
    );
    assert.equal(explained.score.mttn_seconds, 25 * 3600);
    assert.equal(explained.breakdown.rules[3].penalty, 10);
    assert.equal(explained.breakdown.rules[0].penalty, 30, 'no SBOM for the only product');
    assert.equal(explained.score.cra_health_score, 60);
    assert.equal(explained.breakdown.cra_health_score, 60);
    const text = await cli('score', 'explain', '--org', 'acme');
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /cra_health_score of acme: 60/);
    assert.match(text.stdout, /rule 1 sbom_coverage\s+−30/);
    assert.match(text.stdout, /rule 4 slow_notification\s+−10/);
  });

  it('every case change is in the registry, and the chain verifies', async () => {
    const entries = await json('registry', 'list', '--org', 'acme');
    const actions = entries.map((e: { action: string }) => e.action);
    for (const action of ['signal.received', 'case.opened', 'case.early_warning_recorded', 'case.notification_recorded', 'case.closed'])
      assert.ok(actions.includes(action), action);
    assert.ok(!JSON.stringify(entries).includes('confidential'));
    assert.deepEqual(await json('registry', 'verify', '--org', 'acme'), { ok: true, entries: entries.length });
  });
});
