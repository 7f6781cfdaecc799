import assert from 'node:assert/strict';
import { securitySuite } from '../../helpers/security.js';
import { cycloneDx16 } from '../sbom-fixtures.js';

securitySuite({
  name: 'POST /products/{sku}/sbom',
  operationId: 'ingestSbom',
  method: 'POST',
  url: () => '/api/v1/external/products/SEC-1/sbom',
  scope: 'products:write',
  okStatus: 201,
  // A new document each call (fresh serialNumber): the same bytes again would be a 200.
  payload: () => cycloneDx16(2),
  async setup(h, tenant) {
    await h.products.addProduct(tenant.slug, 'SEC-1', { name: 'Security product' });
  },
  async tenancy(h, a, b) {
    // B cannot ingest into A's product, and A's catalogue entry stays as it was.
    const before = await h.products.listProducts(a.slug);
    const res = await h.request({
      method: 'POST',
      url: '/api/v1/external/products/SEC-1/sbom',
      key: b.key,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(cycloneDx16(9)),
    });
    assert.equal(res.statusCode, 404);
    assert.equal(res.json().code, 'product_not_found');
    assert.deepEqual(await h.products.listProducts(a.slug), before);
  },
});
