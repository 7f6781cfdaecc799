import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { buildHarness, type Harness, type Tenant, suiteTeardown } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
import { postIncident, SCORE_URL } from '../helpers/incidents.js';
import { allowDirectWrites } from '../helpers/db.js';

// It changes rows directly, outside Database.transaction.
allowDirectWrites();

// "Done when": signals come in, an administrator opens cases, one early warning is recorded
// late and one deadline is missed outright; the API and `cra-admin score explain` then report
// exactly what the rules of decisions §3 predict. Times are relative to the real clock, which
// the CLI uses; margins of hours keep every comparison away from the present instant.

const H = 3_600_000;

describe('scenario: signals → cases → late early warning → missed deadline → score', () => {
  let h: Harness;
  let acme: Tenant;
  let env: Record<string, string>;
  const base = new Date(Math.floor(Date.now() / 1000) * 1000);
  const t = (hours: number) => new Date(base.getTime() + hours * H).toISOString();
  const teardown = suiteTeardown();
  const cli = async (...args: string[]) => {
    const res = await runCli([...args, '--json'], env);
    assert.equal(res.code, 0, `${args.join(' ')}: ${res.stderr}`);
    return res.json();
  };

  before(async () => {
    h = await buildHarness(teardown);
    env = { DATABASE_URL: h.config.databaseUrl };
    h.clock.current = new Date(t(-200));
    acme = await h.tenant('acme', ['incidents:write', 'products:read', 'compliance:read']);
    await h.products.addProduct('acme', 'RTR-2', { name: 'Router', gtin: '4006381333931' });
    await h.products.addProduct('acme', 'CAM-1', { name: 'Camera', gtin: '96385074' });
    await h.products.addProduct('acme', 'OLD-9', { name: 'Legacy hub', endOfSupport: new Date(t(-24 * 30)) });
    await h.products.addProduct('acme', 'GONE-1', { name: 'Archived, no SBOM, past support', endOfSupport: new Date(t(-24 * 90)) });
    await h.products.archiveProduct('acme', 'GONE-1');
    // SBOM ingest is another feature; the score only reads sbom_status, set here as an ingest would.
    await h.database.db
      .updateTable('products')
      .set({ sbom_status: 'cyclonedx', sbom_components: 12 })
      .where('org_id', '=', acme.orgId)
      .where('sku', 'in', ['RTR-2', 'OLD-9'])
      .execute();

    const signalAt = async (hours: number, body: Record<string, unknown>) => {
      h.clock.current = new Date(t(hours));
      const res = await postIncident(h, acme.key, body);
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(res.json().status, 'INCOMING');
      return res.json().incident_number as number;
    };
    assert.equal(
      await signalAt(-100, { description: 'Remote code execution in httpd', title: 'RCE in httpd', sku: 'RTR-2', cve: 'CVE-2026-4242' }),
      1,
    );
    assert.equal(await signalAt(-80, { description: 'Camera stream exposed\nno auth on /live', gtin: '00000096385074' }), 2);
    assert.equal(await signalAt(-50, { description: 'Something about a fridge', sku: 'FRIDGE-1' }), 3);
    assert.equal(await signalAt(-10, { description: 'Hub reboots on malformed packet' }), 4);

    // The console: three signals become cases; signal 3 stays unattributed and untriaged.
    await cli('case', 'open', '--org', 'acme', '--signal', '1', '--notifiable', '--aware-at', t(-99));
    await cli('case', 'early-warning', '--org', 'acme', '--number', '1', '--at', t(-70)); // due t(-75): 5 h late
    await cli('case', 'notify', '--org', 'acme', '--number', '1', '--at', t(-30)); // due t(-27): on time
    await cli('case', 'open', '--org', 'acme', '--signal', '2', '--notifiable', '--aware-at', t(-30)); // early warning due t(-6): missed
    await cli('case', 'open', '--org', 'acme', '--signal', '4', '--aware-at', t(-5), '--product', 'OLD-9'); // not notifiable
    h.clock.current = new Date();
  });

  const expectedScore = {
    // 100 − 9.9 (coverage 67 %) − 40 (two missed deadlines) − 10 (OLD-9 past support) − 10 (mttn 29 h) = 30.1
    cra_health_score: 30,
    mttn_seconds: 29 * 3600,
    sbom_coverage_percent: 67,
    open_incidents: 3,
    active_timers: [
      { incident_number: 2, title: 'Camera stream exposed', early_warning_deadline: t(-6), full_notification_deadline: t(42) },
    ],
  };

  it('the API reports exactly the predicted score, mttn and timers', async () => {
    const res = await h.request({ method: 'GET', url: SCORE_URL, key: acme.key });
    assert.equal(res.statusCode, 200);
    const { generated_at, ...score } = res.json();
    assert.equal(generated_at, h.clock.now().toISOString());
    assert.deepEqual(score, expectedScore);
  });

  it('the products carry the predicted risk levels', async () => {
    const res = await h.request({ method: 'GET', url: '/api/v1/external/products', key: acme.key });
    const risk = Object.fromEntries(res.json().products.map((p: { sku: string; risk_level: string }) => [p.sku, p.risk_level]));
    assert.deepEqual(risk, { 'CAM-1': 'high', 'GONE-1': 'low', 'OLD-9': 'medium', 'RTR-2': 'high' });
  });

  it('score explain --json gives the same score and the rule-by-rule breakdown', async () => {
    const { score, breakdown } = await cli('score', 'explain', '--org', 'acme');
    const { generated_at: _, ...rest } = score;
    assert.deepEqual(rest, expectedScore);
    assert.deepEqual(
      breakdown.rules.map((r: { rule: number; penalty: number }) => [r.rule, r.penalty]),
      [
        [1, 9.9],
        [2, 40],
        [3, 10],
        [4, 10],
        [5, 0],
      ],
    );
    assert.deepEqual(breakdown.rules[1].inputs.missed, [
      { incident_number: 1, deadline: 'early_warning', due: t(-75), sent_at: t(-70) },
      { incident_number: 2, deadline: 'early_warning', due: t(-6), sent_at: null },
    ]);
    assert.deepEqual(breakdown.rules[2].inputs.products, [{ sku: 'OLD-9', end_of_support: t(-24 * 30) }]);
    assert.equal(breakdown.cra_health_score, 30);
    assert.ok(Math.abs(breakdown.unclamped - 30.1) < 1e-9);
  });

  it('the console lists the unattributed signals and the cases with what was sent when', async () => {
    // Unattributed means "matched no product on receipt"; a case's --product does not rewrite that.
    const unattributed = await cli('signal', 'list', '--org', 'acme', '--unattributed');
    assert.deepEqual(
      unattributed.map((s: { incident_number: number }) => s.incident_number),
      [3, 4],
    );
    const cases = await cli('case', 'list', '--org', 'acme');
    assert.deepEqual(
      cases.map((c: Record<string, unknown>) => [
        c.incident_number,
        c.product_sku,
        c.notifiable,
        c.early_warning_sent_at,
        c.notification_sent_at,
      ]),
      [
        [1, 'RTR-2', true, t(-70), t(-30)],
        [2, 'CAM-1', true, null, null],
        [4, 'OLD-9', false, null, null],
      ],
    );
  });

  it('closing the late case lifts its missed deadline from the score, but not its slow mttn', async () => {
    // The console's Today reads the score through explainScore, whose inputs this process caches.
    const seenBefore = await h.compliance.explainScore('acme');
    await cli('case', 'close', '--org', 'acme', '--number', '1');
    const seenAfter = await h.compliance.explainScore('acme');
    assert.equal(seenAfter.score.cra_health_score, 50, 'a close by another process is seen at once');
    assert.ok(seenBefore.score.cra_health_score < 50);
    const score = (await h.request({ method: 'GET', url: SCORE_URL, key: acme.key })).json();
    assert.equal(score.cra_health_score, 50, '100 − 9.9 − 20 − 10 − 10 = 50.1');
    assert.equal(score.open_incidents, 2);
    assert.equal(score.mttn_seconds, 29 * 3600);
  });
});
