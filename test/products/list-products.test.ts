import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { buildHarness, type Harness, type Tenant, suiteTeardown } from '../helpers/app.js';
import { securitySuite } from '../helpers/security.js';

const URL = '/api/v1/external/products';

securitySuite({
  name: 'GET /products',
  operationId: 'listProducts',
  method: 'GET',
  url: () => URL,
  scope: 'products:read',
  okStatus: 200,
  async tenancy(h, a, b) {
    await h.products.addProduct(a.slug, 'A-ONLY', { name: 'A product' });
    const res = await h.request({ method: 'GET', url: URL, key: b.key });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { products: [], count: 0 });
  },
});

describe('GET /products', () => {
  let h: Harness;
  let acme: Tenant;
  const teardown = suiteTeardown();
  before(async () => {
    h = await buildHarness(teardown, { API_HOSTS: 'api.example.test' });
    acme = await h.tenant('acme', ['products:read']);
    await h.products.addProduct('acme', 'RTR-2', {
      name: 'Router 2',
      gtin: '4006381333931',
      firmwareVersion: '2.0.1',
      endOfSupport: new Date('2030-12-31T00:00:00Z'),
    });
    await h.products.addProduct('acme', 'CAM-1', { name: 'Camera' });
    await h.products.addProduct('acme', 'OLD-1', { name: 'Old thing', gtin: '96385074' });
    await h.products.archiveProduct('acme', 'OLD-1');
  });

  it('returns every product, archived included, in the Product shape, with its count', async () => {
    const res = await h.request({ method: 'GET', url: URL, key: acme.key });
    assert.equal(res.statusCode, 200);
    assert.match(res.headers['content-type'] as string, /^application\/json/);
    const body = res.json();
    assert.equal(body.count, 3);
    assert.deepEqual(
      body.products.map((p: { sku: string }) => p.sku),
      ['CAM-1', 'OLD-1', 'RTR-2'],
    );
    const router = body.products.find((p: { sku: string }) => p.sku === 'RTR-2');
    assert.deepEqual(Object.keys(router).sort(), [
      'end_of_support',
      'firmware_version',
      'gtin',
      'id',
      'name',
      'risk_level',
      'sbom_components',
      'sbom_status',
      'sku',
      'status',
    ]);
    assert.match(router.id, /^[0-9a-f-]{36}$/);
    assert.equal(router.gtin, '4006381333931', 'a GTIN-13 comes back as the 13 digits declared (decisions §2)');
    assert.equal(router.firmware_version, '2.0.1');
    assert.equal(router.end_of_support, '2030-12-31T00:00:00.000Z');
    assert.equal(router.sbom_status, 'none');
    assert.equal(router.sbom_components, 0);
    assert.equal(router.status, 'active');
    assert.equal(router.risk_level, 'low');
    const camera = body.products.find((p: { sku: string }) => p.sku === 'CAM-1');
    assert.equal(camera.gtin, null);
    assert.equal(camera.end_of_support, null);
    const old = body.products.find((p: { sku: string }) => p.sku === 'OLD-1');
    assert.equal(old.status, 'archived');
    assert.equal(old.gtin, '96385074', 'a GTIN-8 comes back as declared');
  });

  it('the catalogue of cra-admin product list and the console is the API answer, key for key, in its order', async () => {
    const api = await h.request({ method: 'GET', url: URL, key: acme.key });
    assert.equal(JSON.stringify(await h.products.listProducts('acme')), JSON.stringify(api.json().products));
  });

  it('keeps the GTIN unique and matched in its 14-digit form, whatever form was declared', async () => {
    await assert.rejects(
      h.products.addProduct('acme', 'RTR-3', { name: 'Same GTIN, 14 digits', gtin: '04006381333931' }),
      /already has that SKU or GTIN/,
    );
    await assert.rejects(
      h.products.addProduct('acme', 'CAM-2', { name: 'Same GTIN-8, padded to 12', gtin: '000096385074' }),
      /already has that SKU or GTIN/,
    );
    const stored = await h.database.db
      .selectFrom('products')
      .select(['gtin', 'gtin_declared'])
      .where('sku', '=', 'RTR-2')
      .executeTakeFirstOrThrow();
    assert.deepEqual(stored, { gtin: '04006381333931', gtin_declared: '4006381333931' });
  });

  it('reflects every change at once, although answers are cached between changes', async () => {
    const first = await h.request({ method: 'GET', url: URL, key: acme.key });
    const again = await h.request({ method: 'GET', url: URL, key: acme.key });
    assert.deepEqual(again.json(), first.json());
    await h.products.updateProduct('acme', 'CAM-1', { firmwareVersion: '9.9.9' });
    const afterUpdate = (await h.request({ method: 'GET', url: URL, key: acme.key })).json();
    assert.equal(afterUpdate.products.find((p: { sku: string }) => p.sku === 'CAM-1').firmware_version, '9.9.9');
    await h.products.addProduct('acme', 'ZZZ-1', { name: 'Newest' });
    const afterAdd = (await h.request({ method: 'GET', url: URL, key: acme.key })).json();
    assert.equal(afterAdd.count, 4);
    await h.products.archiveProduct('acme', 'ZZZ-1');
    const afterArchive = (await h.request({ method: 'GET', url: URL, key: acme.key })).json();
    assert.equal(afterArchive.products.find((p: { sku: string }) => p.sku === 'ZZZ-1').status, 'archived');
  });

  it('ignores a query string: no pagination, no filtering', async () => {
    const all = (await h.request({ method: 'GET', url: URL, key: acme.key })).json();
    const res = await h.request({ method: 'GET', url: `${URL}?limit=1&offset=1&status=active`, key: acme.key });
    assert.deepEqual(res.json(), all);
  });

  it('answers the short form only on a dedicated API host', async () => {
    const onApiHost = await h.request({ method: 'GET', url: '/v1/products', key: acme.key, headers: { host: 'api.example.test' } });
    assert.equal(onApiHost.statusCode, 200);
    assert.equal(onApiHost.json().count, (await h.request({ method: 'GET', url: URL, key: acme.key })).json().count);
    const withPort = await h.request({ method: 'GET', url: '/v1/products', key: acme.key, headers: { host: 'API.example.test:8443' } });
    assert.equal(withPort.statusCode, 200);
    const elsewhere = await h.request({ method: 'GET', url: '/v1/products', key: acme.key, headers: { host: 'console.example.test' } });
    assert.equal(elsewhere.statusCode, 404);
    assert.equal(elsewhere.json().code, 'not_found');
    const wrongMethodElsewhere = await h.request({ method: 'DELETE', url: '/v1/products', headers: { host: 'console.example.test' } });
    assert.equal(wrongMethodElsewhere.statusCode, 404);
    const wrongMethodOnApiHost = await h.request({ method: 'DELETE', url: '/v1/products', headers: { host: 'api.example.test' } });
    assert.equal(wrongMethodOnApiHost.statusCode, 405);
  });

  it('the full prefix answers on every host, the API host included', async () => {
    const res = await h.request({ method: 'GET', url: URL, key: acme.key, headers: { host: 'api.example.test' } });
    assert.equal(res.statusCode, 200);
  });
});
