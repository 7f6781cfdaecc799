import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { complianceSchemas, complianceScoreRoute } from '../../src/compliance/compliance-score.routes.js';
import type { ComplianceService } from '../../src/compliance/compliance.service.js';
import { ErrorBodySchema } from '../../src/errors.js';
import { createIncidentRoute, incidentSchemas } from '../../src/incidents/create-incident.routes.js';
import type { IncidentService } from '../../src/incidents/incidents.service.js';
import { buildHarness, type Harness, type Tenant, suiteTeardown } from '../helpers/app.js';
import { caseServices, INCIDENTS_URL, postIncident, SCORE_URL } from '../helpers/incidents.js';
import { allowDirectWrites } from '../helpers/db.js';

// It changes rows directly, outside Database.transaction.
allowDirectWrites();

// Reporter identity and contact and case notes are stored but never reachable through the API
// (api-v1 §1, decisions §2): every response is serialised through an explicit schema.

const MARKS = ['REPORTER-NAME-MARK', 'reporter-contact@mark.test', 'VAULT-NOTE-MARK'];

function assertClean(label: string, body: string): void {
  for (const mark of MARKS) assert.ok(!body.includes(mark), `${label} leaks ${mark}`);
}

describe('confidential fields never leave through the API', () => {
  let h: Harness;
  let acme: Tenant;
  const teardown = suiteTeardown();
  before(async () => {
    h = await buildHarness(teardown);
    acme = await h.tenant('acme', ['incidents:write', 'products:read', 'compliance:read'], { intakeMode: 'case' });
    await h.products.addProduct('acme', 'RTR-2', { name: 'Router' });
    // The markers are in place BEFORE the later registry entries are written (intake mode change,
    // a case opened from a signal that carries reporter data), so those entries could leak them.
    const markReporters = () =>
      h.database.db
        .updateTable('signals')
        .set({ reporter_name: 'REPORTER-NAME-MARK', reporter_contact: 'reporter-contact@mark.test' })
        .execute();
    await postIncident(h, acme.key, { description: 'case mode report', sku: 'RTR-2' });
    await markReporters();
    await h.orgs.setIntakeMode('acme', 'signal');
    const n = (await postIncident(h, acme.key, { description: 'signal mode report', sku: 'RTR-2' })).json().incident_number;
    await markReporters();
    await caseServices(h).cases.openCase('acme', { signalNumber: n, notifiable: true, note: 'VAULT-NOTE-MARK' });
    await h.database.db.updateTable('cases').set({ notes: 'VAULT-NOTE-MARK' }).execute();
  });

  it('the data really is in the database', async () => {
    const signals = await h.database.db
      .selectFrom('signals')
      .select(['reporter_name', 'reporter_contact'])
      .where('org_id', '=', acme.orgId)
      .execute();
    assert.ok(
      signals.length >= 2 &&
        signals.every((s) => s.reporter_name === 'REPORTER-NAME-MARK' && s.reporter_contact === 'reporter-contact@mark.test'),
    );
    const cases = await h.database.db.selectFrom('cases').select('notes').where('org_id', '=', acme.orgId).execute();
    assert.ok(cases.length === 2 && cases.every((c) => c.notes === 'VAULT-NOTE-MARK'));
  });

  it('no API response, success or error, contains it', async () => {
    const calls = [
      // Reporter fields sent by a client are unknown fields: dropped, never stored or registered.
      postIncident(h, acme.key, {
        description: 'another',
        sku: 'RTR-2',
        reporter_name: 'REPORTER-NAME-MARK',
        reporter_contact: 'reporter-contact@mark.test',
      }),
      postIncident(h, acme.key, { title: 'no description' }),
      h.request({ method: 'GET', url: '/api/v1/external/products', key: acme.key }),
      h.request({ method: 'GET', url: SCORE_URL, key: acme.key }),
      h.request({ method: 'GET', url: INCIDENTS_URL, key: acme.key }),
      h.request({ method: 'GET', url: '/swagger/openapi.json' }),
    ];
    const responses = await Promise.all(calls);
    assert.deepEqual(
      responses.map((r) => r.statusCode),
      [201, 422, 200, 200, 405, 200],
    );
    const score = responses[3]!.json();
    assert.equal(score.active_timers.length, 2, 'the cases with notes are among the timers');
    for (const [i, r] of responses.entries()) assertClean(`call ${i}`, r.body);
    assert.ok(!responses[5]!.body.includes('reporter'), 'the OpenAPI document names no reporter field');
    assert.ok(!responses[5]!.body.includes('notes'), 'the OpenAPI document names no notes field');
  });

  it('registry entries carry no reporter data or notes either', async () => {
    const entries = await h.database.db
      .selectFrom('registry_entries')
      .select(['action', 'details'])
      .where('org_id', '=', acme.orgId)
      .execute();
    const actions = entries.map((e) => e.action);
    assert.ok(
      actions.includes('case.opened') && actions.filter((a) => a === 'signal.received').length === 3,
      'written after the markers were set',
    );
    for (const e of entries) assertClean('registry', e.details);
  });
});

describe('response schemas are an allow-list', () => {
  let app: FastifyInstance;
  before(async () => {
    app = Fastify({ logger: false, ajv: { customOptions: { removeAdditional: true } } });
    app.addSchema(ErrorBodySchema);
    for (const schema of [...incidentSchemas, ...complianceSchemas]) app.addSchema(schema);
    app.decorateRequest('principal', null);
    app.addHook('onRequest', async (request) => {
      request.principal = { keyId: 'k', keyName: 'bot', orgId: 'o', scopes: new Set(), orgRegistrySeq: 0 };
    });
    // A service that (by a future mistake) returns more than the contract: the schema drops it.
    const incidents = {
      receiveSignal: async () => ({
        id: '6f9619ff-8b86-4d11-b42d-00c04fc964ff',
        incident_number: 1,
        status: 'INCOMING',
        awareness_timestamp: null,
        early_warning_deadline: null,
        full_notification_deadline: null,
        reporter_contact: 'reporter-contact@mark.test',
        notes: 'VAULT-NOTE-MARK',
      }),
    } as unknown as IncidentService;
    const compliance = {
      complianceScore: async () => ({
        cra_health_score: 100,
        mttn_seconds: null,
        sbom_coverage_percent: 100,
        open_incidents: 1,
        generated_at: '2026-11-22T10:00:00.000Z',
        reporter_name: 'REPORTER-NAME-MARK',
        active_timers: [
          {
            incident_number: 1,
            title: 't',
            early_warning_deadline: '2026-11-23T10:00:00.000Z',
            full_notification_deadline: '2026-11-25T10:00:00.000Z',
            notes: 'VAULT-NOTE-MARK',
          },
        ],
      }),
    } as unknown as ComplianceService;
    createIncidentRoute(app, { incidents, maxBytes: 65_536 });
    complianceScoreRoute(app, { compliance });
    await app.ready();
  });
  after(() => app.close());

  it('drops fields outside IncidentCreated and ComplianceScore', async () => {
    const created = await app.inject({
      method: 'POST',
      url: '/incidents',
      headers: { 'content-type': 'application/json' },
      payload: '{"description":"x"}',
    });
    assert.equal(created.statusCode, 201);
    assertClean('IncidentCreated', created.body);
    assert.equal(created.json().incident_number, 1);
    const score = await app.inject({ method: 'GET', url: '/compliance-score' });
    assert.equal(score.statusCode, 200);
    assertClean('ComplianceScore', score.body);
    assert.equal(score.json().active_timers[0].title, 't');
  });
});
