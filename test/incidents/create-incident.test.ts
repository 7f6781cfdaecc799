import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { buildHarness, type Harness, type Tenant, suiteTeardown } from '../helpers/app.js';
import { caseServices, INCIDENTS_URL, postIncident } from '../helpers/incidents.js';
import { securitySuite } from '../helpers/security.js';

const H = 3_600_000;

securitySuite({
  name: 'POST /incidents',
  operationId: 'createIncident',
  method: 'POST',
  url: () => INCIDENTS_URL,
  scope: 'incidents:write',
  okStatus: 201,
  payload: () => ({ description: 'security suite report' }),
  async tenancy(h, a, b) {
    await h.products.addProduct(a.slug, 'A-ONLY', { name: 'A product', gtin: '4006381333931' });
    const aSignals = (await caseServices(h).incidents.listSignals(a.slug)).length;
    const res = await postIncident(h, b.key, { description: "names A's product", sku: 'A-ONLY', gtin: '4006381333931' });
    assert.equal(res.statusCode, 201);
    assert.equal(res.json().incident_number, 1, "B's numbering is its own");
    const bSignals = await caseServices(h).incidents.listSignals(b.slug);
    assert.equal(bSignals.length, 1);
    assert.equal(bSignals[0]!.product_sku, null, "another organisation's SKU or GTIN never matches");
    assert.equal((await caseServices(h).incidents.listSignals(a.slug)).length, aSignals, "nothing lands in A's signals");
  },
});

describe('POST /incidents', () => {
  let h: Harness;
  let acme: Tenant;
  let router: { id: string };
  const teardown = suiteTeardown();
  const signals = () =>
    h.database.db.selectFrom('signals').selectAll().where('org_id', '=', acme.orgId).orderBy('incident_number').execute();
  const lastSignal = async () => (await signals()).at(-1)!;

  before(async () => {
    h = await buildHarness(teardown, { API_HOSTS: 'api.example.test' });
    acme = await h.tenant('acme', ['incidents:write']);
    router = await h.products.addProduct('acme', 'RTR-2', { name: 'Router 2', gtin: '4006381333931' });
    await h.products.addProduct('acme', 'OLD-1', { name: 'Old', gtin: '96385074' });
    await h.products.archiveProduct('acme', 'OLD-1');
  });

  describe('intake mode signal (default)', () => {
    it('registers an INCOMING signal: no case, no clock, null timestamps', async () => {
      const bot = await acme.keyFor(['incidents:write'], 'scanner-bot');
      const res = await postIncident(h, bot, {
        description: 'Telnet open on port 23',
        title: 'Open telnet',
        cve: 'CVE-2026-12345',
        sku: 'RTR-2',
      });
      assert.equal(res.statusCode, 201, res.body);
      assert.match(res.headers['content-type'] as string, /^application\/json/);
      const body = res.json();
      assert.deepEqual(Object.keys(body).sort(), [
        'awareness_timestamp',
        'early_warning_deadline',
        'full_notification_deadline',
        'id',
        'incident_number',
        'status',
      ]);
      assert.match(body.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      assert.equal(body.incident_number, 1);
      assert.equal(body.status, 'INCOMING');
      assert.equal(body.awareness_timestamp, null);
      assert.equal(body.early_warning_deadline, null);
      assert.equal(body.full_notification_deadline, null);

      const row = await lastSignal();
      assert.equal(row.id, body.id);
      assert.equal(row.status, 'INCOMING');
      assert.equal(row.source, 'api:scanner-bot');
      assert.equal(row.received_at, h.clock.now().toISOString());
      assert.equal(row.product_id, router.id);
      assert.equal(row.cve, 'CVE-2026-12345');
      assert.equal(row.title, 'Open telnet');
      const cases = await h.database.db.selectFrom('cases').selectAll().where('org_id', '=', acme.orgId).execute();
      assert.equal(cases.length, 0, 'a signal opens no case');
    });

    it('appends signal.received to the registry, without the report text or reporter data', async () => {
      const res = await postIncident(h, acme.key, { description: 'SECRET-DESCRIPTION-TEXT', sku: 'RTR-2' });
      const entries = await h.database.db
        .selectFrom('registry_entries')
        .selectAll()
        .where('org_id', '=', acme.orgId)
        .orderBy('seq')
        .execute();
      const last = entries.at(-1)!;
      assert.equal(last.action, 'signal.received');
      assert.equal(last.subject, `signal ${res.json().incident_number}`);
      assert.match(last.actor, /^api:/);
      assert.deepEqual(JSON.parse(last.details), {
        cve: null,
        incident_number: res.json().incident_number,
        intake_mode: 'signal',
        product_sku: 'RTR-2',
      });
      assert.ok(!last.details.includes('SECRET-DESCRIPTION-TEXT'));
    });
  });

  describe('intake mode case', () => {
    let lab: Tenant;
    before(async () => {
      lab = await h.tenant('lab', ['incidents:write'], { intakeMode: 'case' });
      await h.products.addProduct('lab', 'CAM-1', { name: 'Camera' });
    });

    it('opens a signal and a notifiable case at once: OPEN, awareness = receipt, deadlines +24 h / +72 h', async () => {
      h.clock.current = new Date('2026-11-22T10:15:30.123Z');
      const res = await postIncident(h, lab.key, { description: 'Exploited in the wild\nmore detail', sku: 'CAM-1' });
      assert.equal(res.statusCode, 201, res.body);
      const body = res.json();
      assert.equal(body.status, 'OPEN');
      assert.equal(body.incident_number, 1);
      assert.equal(body.awareness_timestamp, '2026-11-22T10:15:30.123Z');
      assert.equal(body.early_warning_deadline, '2026-11-23T10:15:30.123Z');
      assert.equal(body.full_notification_deadline, '2026-11-25T10:15:30.123Z');
      const kase = await h.database.db.selectFrom('cases').selectAll().where('org_id', '=', lab.orgId).executeTakeFirstOrThrow();
      assert.equal(kase.incident_number, 1);
      assert.equal(kase.signal_id, body.id);
      assert.equal(kase.notifiable, 1);
      assert.equal(kase.status, 'open');
      assert.equal(kase.title, 'Exploited in the wild');
      assert.equal(kase.aware_at, body.awareness_timestamp);
      const actions = (
        await h.database.db.selectFrom('registry_entries').select('action').where('org_id', '=', lab.orgId).orderBy('seq').execute()
      ).map((e) => e.action);
      assert.deepEqual(actions.slice(-2), ['signal.received', 'case.opened']);
    });

    it('follows the organisation setting per request: switching back to signal stops opening cases', async () => {
      await h.orgs.setIntakeMode('lab', 'signal');
      const res = await postIncident(h, lab.key, { description: 'after the switch' });
      assert.equal(res.json().status, 'INCOMING');
      assert.equal(res.json().incident_number, 2);
      assert.equal(res.json().awareness_timestamp, null);
      await h.orgs.setIntakeMode('lab', 'case');
      const again = await postIncident(h, lab.key, { description: 'switched back' });
      assert.equal(again.json().status, 'OPEN');
      assert.equal(again.json().incident_number, 3);
      assert.equal(Date.parse(again.json().early_warning_deadline) - Date.parse(again.json().awareness_timestamp), 24 * H);
    });
  });

  describe('product matching', () => {
    const matchOf = async (body: Record<string, unknown>) => {
      const res = await postIncident(h, acme.key, { description: 'matching', ...body });
      assert.equal(res.statusCode, 201, res.body);
      return (await lastSignal()).product_id;
    };

    it('matches by sku, else by gtin in any GTIN form; sku wins over gtin', async () => {
      assert.equal(await matchOf({ sku: 'RTR-2' }), router.id);
      assert.equal(await matchOf({ gtin: '4006381333931' }), router.id, 'GTIN-13 matches the stored 14 digits');
      assert.equal(await matchOf({ gtin: '0 4006381-333931' }), router.id, 'spaces and dashes are ignored');
      assert.equal(await matchOf({ sku: 'NOPE', gtin: '04006381333931' }), router.id, 'an unknown sku falls back to the gtin');
      const old = await h.database.db.selectFrom('products').select('id').where('sku', '=', 'OLD-1').executeTakeFirstOrThrow();
      assert.equal(await matchOf({ sku: 'OLD-1', gtin: '4006381333931' }), old.id, 'the sku is tried first');
    });

    it('keeps a signal whose sku or gtin matches nothing as unattributed, never an error', async () => {
      assert.equal(await matchOf({ sku: 'NOPE' }), null);
      assert.equal(await matchOf({ gtin: '4006381333932' }), null, 'bad check digit');
      assert.equal(await matchOf({ gtin: 'not a gtin' }), null);
      assert.equal(await matchOf({ sku: '', gtin: '' }), null);
      assert.equal(await matchOf({}), null);
      const unattributed = await caseServices(h).incidents.listSignals(acme.slug, { unattributed: true });
      assert.ok(unattributed.length >= 5);
      assert.ok(unattributed.every((s) => s.product_sku === null));
      const all = await caseServices(h).incidents.listSignals(acme.slug);
      assert.ok(all.length > unattributed.length);
    });

    it('stores the sku and gtin as sent (trimmed), blank ones as null', async () => {
      await matchOf({ sku: ' RTR-2 ', gtin: '  ', title: '   ' });
      const row = await lastSignal();
      assert.equal(row.sku, 'RTR-2');
      assert.equal(row.product_id, router.id);
      assert.equal(row.gtin, null);
      assert.equal(row.title, null);
    });

    it('treats optional fields sent as null as absent (decisions §4)', async () => {
      assert.equal(await matchOf({ title: null, cve: null, sku: null, gtin: null }), null);
      const row = await lastSignal();
      assert.deepEqual([row.title, row.cve, row.sku, row.gtin], [null, null, null, null]);
      assert.equal(await matchOf({ sku: null, gtin: '4006381333931' }), router.id, 'a null sku falls back to the gtin');
    });

    it('shows the optional fields as nullable in the OpenAPI document', async () => {
      const doc = (await h.request({ url: '/swagger/openapi.json' })).json();
      const props = doc.components.schemas.NewIncident.properties;
      for (const field of ['title', 'cve', 'sku', 'gtin']) assert.equal(props[field].nullable, true, field);
      assert.equal(props.description.nullable, undefined, 'description stays required and non-null');
    });
  });

  describe('invalid bodies', () => {
    const expect422 = async (body: unknown, paths: string[]) => {
      const before = (await signals()).length;
      const res = await postIncident(h, acme.key, body);
      assert.equal(res.statusCode, 422, res.body);
      const json = res.json();
      assert.equal(json.code, 'validation_failed');
      assert.equal(typeof json.request_id, 'string');
      assert.deepEqual([...new Set(json.details.map((d: { path: string }) => d.path))].sort(), [...paths].sort());
      assert.ok(json.details.every((d: { message: string }) => typeof d.message === 'string' && d.message.length > 0));
      assert.equal((await signals()).length, before, 'nothing is stored');
      return json;
    };

    it('422 when description is missing, empty or only whitespace', async () => {
      await expect422({ title: 'no description' }, ['/description']);
      await expect422({ description: '' }, ['/description']);
      await expect422({ description: '  \n\t ' }, ['/description']);
      await expect422({}, ['/description']);
    });

    it('422 naming every field of the wrong type, with no coercion', async () => {
      await expect422({ description: 42 }, ['/description']);
      await expect422({ description: 'ok', title: 1, cve: true, sku: ['RTR-2'], gtin: 4006381333931 }, ['/title', '/cve', '/sku', '/gtin']);
      await expect422({ description: null }, ['/description']);
    });

    it('422 for a cve that is not CVE-YYYY-NNNN…', async () => {
      for (const cve of ['cve-2026-1234', 'CVE-26-1234', 'CVE-2026-123', 'CVE-2026-12345 ', 'x CVE-2026-1234'])
        await expect422({ description: 'ok', cve }, ['/cve']);
      const ok = await postIncident(h, acme.key, { description: 'ok', cve: 'CVE-2026-1234567' });
      assert.equal(ok.statusCode, 201);
    });

    it('422 for strings over their maximum length', async () => {
      await expect422({ description: 'ok', title: 't'.repeat(201) }, ['/title']);
      await expect422({ description: 'ok', sku: 's'.repeat(101) }, ['/sku']);
      await expect422({ description: 'd'.repeat(32_769) }, ['/description']);
    });

    it('422 for a body that is JSON but not an object', async () => {
      for (const body of ['[]', '"text"', '42', 'null']) await expect422(body, ['/']);
    });

    it('400 invalid_json for unparseable JSON and for prototype-poisoning keys', async () => {
      for (const body of [
        '{"description": "x"',
        '{description: "x"}',
        '{"__proto__":{}}',
        '{"description":"x","__proto__":{"polluted":true}}',
        '{"constructor":{"prototype":{"polluted":true}}}',
      ]) {
        const res = await postIncident(h, acme.key, body);
        assert.equal(res.statusCode, 400, `${body} → ${res.body}`);
        assert.equal(res.json().code, 'invalid_json');
      }
      assert.equal(({} as Record<string, unknown>).polluted, undefined);
    });

    it('400 invalid_json for bytes that are not UTF-8, never stored as U+FFFD; UTF-8 text is kept as sent', async () => {
      const text = '{"description":"caf\u00e9 firmware"}';
      const post = (encoding: BufferEncoding) =>
        h.app.inject({
          method: 'POST',
          url: INCIDENTS_URL,
          headers: { 'x-cra-api-key': acme.key, 'content-type': 'application/json; charset=utf-8' },
          payload: Buffer.from(text, encoding),
        });
      const latin1 = await post('latin1');
      assert.equal(latin1.statusCode, 400, latin1.body);
      assert.equal(latin1.json().code, 'invalid_json');
      assert.match(latin1.json().errore, /not UTF-8/);
      const utf8 = await post('utf8');
      assert.equal(utf8.statusCode, 201, utf8.body);
      const stored = await h.database.db
        .selectFrom('signals')
        .select('description')
        .where('id', '=', utf8.json().id)
        .executeTakeFirstOrThrow();
      assert.equal(stored.description, 'caf\u00e9 firmware');
    });

    it('413 for a body over 64 KiB, before validation', async () => {
      const res = await postIncident(h, acme.key, { description: 'x'.repeat(64 * 1024) });
      assert.equal(res.statusCode, 413);
      assert.equal(res.json().code, 'payload_too_large');
      const justUnder = await postIncident(h, acme.key, { description: 'ok', padding: 'p'.repeat(60 * 1024) });
      assert.equal(justUnder.statusCode, 201, 'a 60 KiB body is accepted (the unknown field is dropped)');
    });

    it('415 for text/plain, form bodies and a missing Content-Type', async () => {
      for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
        const res = await postIncident(h, acme.key, '{"description":"x"}', { 'content-type': type });
        assert.equal(res.statusCode, 415, type);
        assert.equal(res.json().code, 'unsupported_media_type');
      }
      const none = await h.app.inject({
        method: 'POST',
        url: INCIDENTS_URL,
        headers: { 'x-cra-api-key': acme.key },
        payload: Buffer.from('{"description":"x"}'),
      });
      assert.equal(none.statusCode, 415);
      assert.equal(none.json().code, 'unsupported_media_type');
    });

    it('ignores unknown fields and does not store them', async () => {
      const res = await postIncident(h, acme.key, {
        description: 'with extras',
        incident_number: 999,
        status: 'CLOSED',
        reporter_name: 'Eve Example',
        reporter_contact: 'eve@example.test',
        org_id: 'someone-else',
        product_id: router.id,
      });
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(res.json().status, 'INCOMING');
      assert.notEqual(res.json().incident_number, 999);
      const row = await lastSignal();
      assert.equal(row.reporter_name, null);
      assert.equal(row.reporter_contact, null);
      assert.equal(row.org_id, acme.orgId);
      assert.equal(row.product_id, null);
      assert.equal(row.status, 'INCOMING');
    });
  });

  it('honours INCIDENT_MAX_BYTES', async (t) => {
    const small = await buildHarness(t, { INCIDENT_MAX_BYTES: '512' });
    const tenant = await small.tenant('small', ['incidents:write']);
    assert.equal((await postIncident(small, tenant.key, { description: 'x'.repeat(400) })).statusCode, 201);
    assert.equal((await postIncident(small, tenant.key, { description: 'x'.repeat(600) })).statusCode, 413);
  });

  it('answers the short form /v1/incidents on a dedicated API host, with the same numbering', async () => {
    const count = (await signals()).length;
    const res = await h.request({
      method: 'POST',
      url: '/v1/incidents',
      key: acme.key,
      headers: { host: 'api.example.test', 'content-type': 'application/json' },
      payload: JSON.stringify({ description: 'short form' }),
    });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json().incident_number, count + 1);
    const elsewhere = await h.request({
      method: 'POST',
      url: '/v1/incidents',
      key: acme.key,
      headers: { host: 'other.example.test', 'content-type': 'application/json' },
      payload: '{"description":"x"}',
    });
    assert.equal(elsewhere.statusCode, 404);
  });
});
