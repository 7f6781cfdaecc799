import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { listRegistry, verifyRegistry } from '../../src/registry/registry.service.js';
import { buildHarness, type Harness, type Tenant, suiteTeardown } from '../helpers/app.js';
import { cycloneDx16, fixtureBytes } from './sbom-fixtures.js';

const URL = '/api/v1/external/products/RTR-1/sbom';

describe('SBOM ingest: revisions, duplicates, the catalogue, the registry', () => {
  let h: Harness;
  let acme: Tenant;
  const teardown = suiteTeardown();
  before(async () => {
    h = await buildHarness(teardown, { API_HOSTS: 'api.example.test' });
    acme = await h.tenant('acme', ['products:write', 'products:read']);
    await h.products.addProduct('acme', 'RTR-1', { name: 'Router', firmwareVersion: '9.9.9' });
  });

  const post = (payload: string | Buffer, contentType = 'application/json') =>
    h.request({ method: 'POST', url: URL, key: acme.key, headers: { 'content-type': contentType }, payload });
  const revisionOf = async (sbomId: string) =>
    await h.database.db
      .selectFrom('sbom_revisions')
      .select(['revision', 'release_id', 'source'])
      .where('id', '=', sbomId)
      .executeTakeFirstOrThrow();
  const productRow = async () => {
    const res = await h.request({ method: 'GET', url: '/api/v1/external/products', key: acme.key });
    return res.json().products.find((p: { sku: string }) => p.sku === 'RTR-1');
  };

  it('the identical document again → 200 with the same body, nothing new stored', async () => {
    const doc = JSON.stringify(cycloneDx16(4, { version: '2.0.0' }));
    const first = await post(doc);
    assert.equal(first.statusCode, 201, first.body);
    h.clock.advance(60_000);
    const again = await post(doc);
    assert.equal(again.statusCode, 200);
    assert.deepEqual(again.json(), first.json());
    const count = await h.database.db
      .selectFrom('sbom_revisions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    assert.equal(Number(count.n), 1);
  });

  it('a new document for the same release → revision 2; another release starts at 1', async () => {
    const first = await post(JSON.stringify(cycloneDx16(3, { version: '3.0.0' })));
    const second = await post(JSON.stringify(cycloneDx16(5, { version: '3.0.0' })));
    const other = await post(JSON.stringify(cycloneDx16(1, { version: '3.1.0' })));
    for (const r of [first, second, other]) assert.equal(r.statusCode, 201, r.body);
    const [a, b, c] = await Promise.all([first, second, other].map((r) => revisionOf(r.json().sbom_id)));
    assert.equal(a!.revision, 1);
    assert.equal(b!.revision, 2);
    assert.equal(b!.release_id, a!.release_id);
    assert.equal(second.json().release_version, '3.0.0');
    assert.equal(c!.revision, 1);
    assert.notEqual(c!.release_id, a!.release_id);
    assert.equal(a!.source, 'api:key-1');
  });

  it('the same content serialised differently is another document: the digest covers the bytes', async () => {
    const doc = cycloneDx16(2, { version: '4.0.0' });
    const compact = await post(JSON.stringify(doc));
    const pretty = await post(JSON.stringify(doc, null, 2));
    assert.equal(compact.statusCode, 201);
    assert.equal(pretty.statusCode, 201, 'the digest covers the exact bytes');
    assert.notEqual(compact.json().digest, pretty.json().digest);
    assert.equal((await revisionOf(pretty.json().sbom_id)).revision, 2);
  });

  it('the catalogue shows the format and component count of the latest upload', async () => {
    await post(JSON.stringify(cycloneDx16(7, { version: '5.0.0' })));
    let product = await productRow();
    assert.equal(product.sbom_status, 'cyclonedx');
    assert.equal(product.sbom_components, 7);
    const spdx = await post(fixtureBytes('spdx/example8-spdx2.3-examplemaven-0.0.1.spdx.json'), 'application/spdx+json');
    assert.equal(spdx.statusCode, 201);
    product = await productRow();
    assert.equal(product.sbom_status, 'spdx');
    assert.equal(product.sbom_components, 5);
  });

  it('each ingest appends sbom.ingested to the registry; the chain verifies', async () => {
    const res = await post(JSON.stringify(cycloneDx16(2, { version: '6.0.0' })));
    const entries = [];
    for await (const e of listRegistry(h.database, acme.orgId)) entries.push(e);
    const last = entries[entries.length - 1]!;
    assert.equal(last.action, 'sbom.ingested');
    assert.equal(last.subject, 'RTR-1');
    assert.equal(last.actor, 'api:key-1');
    const details = JSON.parse(last.details);
    assert.deepEqual(details, {
      sbom_id: res.json().sbom_id,
      format: 'cyclonedx',
      spec_version: '1.6',
      release: '6.0.0',
      revision: 1,
      components: 2,
      digest: res.json().digest,
      // The verdicts kept with the revision, one per profile (its report is read with cra-admin sbom conformance).
      conformance: [
        { profile: 'bsi-tr-03183-2-v2.1', profile_version: details.conformance[0].profile_version, conforms: false },
        { profile: 'ntia-minimum', profile_version: details.conformance[1].profile_version, conforms: false },
      ],
    });
    assert.equal((await verifyRegistry(h.database, acme.orgId)).ok, true);
  });

  it('concurrent uploads of one document store it once; the others get 200', async () => {
    const doc = JSON.stringify(cycloneDx16(3, { version: '7.0.0' }));
    const results = await Promise.all([post(doc), post(doc), post(doc)]);
    assert.deepEqual(results.map((r) => r.statusCode).sort(), [200, 200, 201]);
    assert.equal(new Set(results.map((r) => r.json().sbom_id)).size, 1);
  });

  it('has no short form, even on a dedicated API host', async () => {
    const res = await h.request({
      method: 'POST',
      url: '/v1/products/RTR-1/sbom',
      key: acme.key,
      headers: { host: 'api.example.test', 'content-type': 'application/json' },
      payload: JSON.stringify(cycloneDx16(1)),
    });
    assert.equal(res.statusCode, 404);
  });

  it('is described in the OpenAPI document', async () => {
    const doc = (await h.app.inject({ method: 'GET', url: '/swagger/openapi.json' })).json();
    const op = doc.paths['/products/{sku}/sbom'].post;
    assert.equal(op.operationId, 'ingestSbom');
    assert.deepEqual(op.security, [{ ApiKeyHeader: [] }, { BearerAuth: [] }]);
    assert.equal(op.parameters.find((p: { name: string }) => p.name === 'sku').in, 'path');
    assert.deepEqual(Object.keys(op.requestBody.content).sort(), [
      'application/json',
      'application/spdx+json',
      'application/vnd.cyclonedx+json',
    ]);
    assert.deepEqual(Object.keys(op.responses).sort(), [
      '200',
      '201',
      '400',
      '401',
      '403',
      '404',
      '405',
      '409',
      '413',
      '415',
      '422',
      '429',
      '503',
    ]);
    assert.ok(JSON.stringify(op.responses['201']).includes('SbomIngested'));
    assert.ok(doc.components.schemas.SbomIngested);
  });
});
