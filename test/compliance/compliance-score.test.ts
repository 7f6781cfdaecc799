import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { buildHarness, type Harness, type Tenant, suiteTeardown } from '../helpers/app.js';
import { caseServices, postIncident, SCORE_URL } from '../helpers/incidents.js';
import { securitySuite } from '../helpers/security.js';

const H = 3_600_000;

securitySuite({
  name: 'GET /compliance-score',
  operationId: 'getComplianceScore',
  method: 'GET',
  url: () => SCORE_URL,
  scope: 'compliance:read',
  okStatus: 200,
  async tenancy(h, a, b) {
    await h.orgs.setIntakeMode(a.slug, 'case');
    const writer = await a.keyFor(['incidents:write']);
    await h.products.addProduct(a.slug, 'A-NO-SBOM', { name: 'A product' });
    assert.equal((await postIncident(h, writer, { description: 'A incident' })).statusCode, 201);
    const seenByA = (await h.request({ method: 'GET', url: SCORE_URL, key: a.key })).json();
    assert.equal(seenByA.open_incidents, 1);
    const res = await h.request({ method: 'GET', url: SCORE_URL, key: b.key });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.deepEqual(
      { ...body, generated_at: null },
      {
        cra_health_score: 100,
        mttn_seconds: null,
        sbom_coverage_percent: 100,
        open_incidents: 0,
        generated_at: null,
        active_timers: [],
      },
    );
  },
});

describe('GET /compliance-score', () => {
  let h: Harness;
  let acme: Tenant;
  let writer: string;
  const teardown = suiteTeardown();
  const score = async () => {
    const res = await h.request({ method: 'GET', url: SCORE_URL, key: acme.key });
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };

  before(async () => {
    h = await buildHarness(teardown, { API_HOSTS: 'api.example.test' });
    acme = await h.tenant('acme', ['compliance:read']);
    writer = await acme.keyFor(['incidents:write']);
  });

  it('a new organisation scores 100 with nothing to report', async () => {
    const body = await score();
    assert.deepEqual(Object.keys(body).sort(), [
      'active_timers',
      'cra_health_score',
      'generated_at',
      'mttn_seconds',
      'open_incidents',
      'sbom_coverage_percent',
    ]);
    assert.equal(body.cra_health_score, 100);
    assert.equal(body.mttn_seconds, null);
    assert.equal(body.generated_at, h.clock.now().toISOString());
  });

  it('signals start no timer; a case in intake mode case does, and time moves it to a missed deadline', async () => {
    await postIncident(h, writer, { description: 'just a signal' });
    assert.deepEqual((await score()).active_timers, []);
    assert.equal((await score()).open_incidents, 0);

    await h.orgs.setIntakeMode('acme', 'case');
    const created = (await postIncident(h, writer, { description: 'Worm spreading\nvia UPnP' })).json();
    let body = await score();
    assert.equal(body.open_incidents, 1);
    assert.deepEqual(body.active_timers, [
      {
        incident_number: created.incident_number,
        title: 'Worm spreading',
        early_warning_deadline: created.early_warning_deadline,
        full_notification_deadline: created.full_notification_deadline,
      },
    ]);
    assert.equal(body.cra_health_score, 100, 'no deadline has passed yet');

    h.clock.advance(24 * H);
    assert.equal((await score()).cra_health_score, 100, 'at the deadline instant it is not yet missed');
    h.clock.advance(1);
    body = await score();
    assert.equal(body.cra_health_score, 80, 'the early warning deadline passed unmet');
    assert.equal(body.generated_at, h.clock.now().toISOString());

    const { cases } = caseServices(h);
    h.clock.advance(H - 1);
    await cases.recordEarlyWarning('acme', created.incident_number);
    body = await score();
    assert.equal(body.mttn_seconds, 25 * 3600);
    assert.equal(body.cra_health_score, 70, 'still missed (sent late), and now mttn > 24 h');
    assert.equal(body.active_timers.length, 1, 'the notification is still owed');

    h.clock.advance(47 * H);
    assert.equal((await score()).cra_health_score, 70, 'notification deadline not passed yet');
    h.clock.advance(1);
    assert.equal((await score()).cra_health_score, 50, 'both deadlines missed, and the slow mttn');
    await cases.recordNotification('acme', created.incident_number);
    assert.deepEqual((await score()).active_timers, []);
    assert.equal((await score()).cra_health_score, 50, 'a deadline met late stays missed while the case is open');
    await cases.closeCase('acme', created.incident_number);
    body = await score();
    assert.equal(body.open_incidents, 0);
    assert.equal(body.cra_health_score, 90, 'a closed case no longer counts its deadlines; its slow mttn still does');
    assert.equal(body.mttn_seconds, 25 * 3600);
  });

  it('answers the short form on an API host and ignores a query string', async () => {
    const res = await h.request({ method: 'GET', url: '/v1/compliance-score?x=1', key: acme.key, headers: { host: 'api.example.test' } });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().open_incidents, (await score()).open_incidents);
  });
});

describe('OpenAPI document for incidents and the score', () => {
  let doc: any;
  const teardown = suiteTeardown();
  before(async () => {
    const h = await buildHarness(teardown);
    doc = (await h.app.inject({ method: 'GET', url: '/swagger/openapi.json' })).json();
  });

  it('describes POST /incidents with both intake modes, its body, nullable timestamps and every response code', () => {
    const op = doc.paths['/incidents'].post;
    assert.match(op.description, /intake mode/i);
    assert.match(op.description, /`signal`/);
    assert.match(op.description, /`case`/);
    assert.deepEqual(Object.keys(op.responses).sort(), ['201', '400', '401', '403', '405', '413', '415', '422', '429', '503']);
    const schemas = doc.components.schemas;
    assert.deepEqual(schemas.NewIncident.required, ['description']);
    assert.equal(schemas.NewIncident.properties.cve.pattern, '^CVE-\\d{4}-\\d{4,}$');
    for (const field of ['awareness_timestamp', 'early_warning_deadline', 'full_notification_deadline']) {
      assert.equal(schemas.IncidentCreated.properties[field].nullable, true, field);
      assert.equal(schemas.IncidentCreated.properties[field].format, 'date-time', field);
      assert.ok(schemas.IncidentCreated.properties[field].description, field);
    }
    assert.equal(op.security.length, 2);
  });

  it('describes GET /compliance-score with ComplianceScore and ActiveTimer', () => {
    const op = doc.paths['/compliance-score'].get;
    assert.deepEqual(Object.keys(op.responses).sort(), ['200', '401', '403', '405', '429', '503']);
    const schemas = doc.components.schemas;
    assert.equal(schemas.ComplianceScore.properties.mttn_seconds.nullable, true);
    assert.match(schemas.ComplianceScore.properties.cra_health_score.description, /86400/);
    assert.ok(schemas.ActiveTimer.properties.early_warning_deadline);
  });
});
