import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { componentsRepo } from '../../src/sbom/store/components.repo.js';
import { buildHarness, type Harness, type Tenant, suiteTeardown } from '../helpers/app.js';
import { FIXTURES, fixtureBytes, FIRMWARE, sha256, skuOf } from './sbom-fixtures.js';

const url = (sku: string) => `/api/v1/external/products/${sku}/sbom`;

describe('SBOM ingest of the published fixtures through the API', () => {
  let h: Harness;
  let acme: Tenant;
  const teardown = suiteTeardown();
  before(async () => {
    h = await buildHarness(teardown);
    acme = await h.tenant('acme', ['products:write', 'products:read']);
    for (const f of FIXTURES) await h.products.addProduct('acme', skuOf(f.file), { name: f.file, firmwareVersion: FIRMWARE });
    await h.products.addProduct('acme', 'NO-FIRMWARE', { name: 'no firmware version' });
  });

  for (const f of FIXTURES) {
    it(`${f.file}: ${f.format} ${f.specVersion}, ${f.components} components, release ${f.release ?? FIRMWARE}`, async () => {
      const bytes = fixtureBytes(f.file);
      // Taken first: in process (inject), the server's SBOM reader takes the body's buffers over.
      const digest = sha256(bytes);
      const res = await h.request({
        method: 'POST',
        url: url(skuOf(f.file)),
        key: acme.key,
        headers: { 'content-type': 'application/json' },
        payload: bytes,
      });
      assert.equal(res.statusCode, 201, res.body);
      const body = res.json();
      assert.deepEqual(Object.keys(body).sort(), [
        'components',
        'conformance',
        'digest',
        'format',
        'ingested_at',
        'product_sku',
        'release_version',
        'sbom_id',
        'spec_version',
      ]);
      assert.equal(body.product_sku, skuOf(f.file));
      assert.equal(body.format, f.format);
      assert.equal(body.spec_version, f.specVersion);
      assert.equal(body.components, f.components);
      assert.equal(body.release_version, f.release ?? FIRMWARE);
      assert.equal(body.digest, digest);
      assert.match(body.sbom_id, /^[0-9a-f-]{36}$/);
      assert.equal(body.ingested_at, h.clock.now().toISOString());
      const stored = await componentsRepo.ofRevision(h.database.db, acme.orgId, body.sbom_id);
      assert.equal(stored.length, f.components);
    });
  }

  it('falls back to `unversioned` when neither the document nor the product names a version', async () => {
    const res = await h.request({
      method: 'POST',
      url: url('NO-FIRMWARE'),
      key: acme.key,
      headers: { 'content-type': 'application/spdx+json' },
      payload: fixtureBytes('spdx/example7-spdx2.2-example7-bin.spdx.json'),
    });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json().release_version, 'unversioned');
  });

  it('stores name, version, purl, type, licenses and ref per component', async () => {
    const res = await h.request({
      method: 'POST',
      url: url('NO-FIRMWARE'),
      key: acme.key,
      headers: { 'content-type': 'application/vnd.cyclonedx+json' },
      payload: fixtureBytes('cyclonedx/laravel-7.12.0-bom.1.4.json'),
    });
    assert.equal(res.statusCode, 201, res.body);
    const [first] = await componentsRepo.ofRevision(h.database.db, acme.orgId, res.json().sbom_id);
    assert.ok(first);
    // The laravel BOM's first component, as written in the file.
    assert.deepEqual(
      { name: first.name, version: first.version, purl: first.purl, type: first.type, licenses: first.licenses, ref: first.ref },
      {
        name: 'stack-cors',
        version: '1.3.0',
        purl: 'pkg:composer/asm89/stack-cors@1.3.0',
        type: 'library',
        licenses: '["MIT"]',
        ref: 'asm89/stack-cors-1.3.0.0',
      },
    );
  });
});
