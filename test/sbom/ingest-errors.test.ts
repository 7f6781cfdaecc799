import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { buildHarness, type Harness, type Tenant, suiteTeardown } from '../helpers/app.js';
import { cycloneDx16, fixtureBytes, fixtureJson } from './sbom-fixtures.js';

const url = (sku: string) => `/api/v1/external/products/${sku}/sbom`;
const LARAVEL = 'cyclonedx/laravel-7.12.0-bom.1.4.json';
const SPDX23 = 'spdx/example8-spdx2.3-examplemaven-0.0.1.spdx.json';
const SPDX22 = 'spdx/example9-spdx2.2-appbomination.spdx.json';
const SPDX3 = 'spdx/example11-spdx3.0-sbom.spdx3.json';

describe('SBOM ingest: errors', () => {
  let h: Harness;
  let acme: Tenant;
  const teardown = suiteTeardown();
  before(async () => {
    h = await buildHarness(teardown, { RATE_LIMIT_PER_MINUTE: '1000' });
    acme = await h.tenant('acme', ['products:write']);
    await h.products.addProduct('acme', 'RTR-1', { name: 'Router' });
  });

  const post = (payload: unknown, contentType = 'application/json', sku = 'RTR-1') =>
    h.request({
      method: 'POST',
      url: url(sku),
      key: acme.key,
      headers: { 'content-type': contentType },
      payload: typeof payload === 'string' || Buffer.isBuffer(payload) ? payload : JSON.stringify(payload),
    });

  async function expectError(payload: unknown, status: number, code: string, paths?: string[]) {
    const res = await post(payload);
    assert.equal(res.statusCode, status, res.body);
    const body = res.json();
    assert.equal(body.code, code);
    assert.equal(typeof body.errore, 'string');
    assert.equal(typeof body.request_id, 'string');
    if (paths) {
      const got = (body.details as Array<{ path: string }>).map((d) => d.path);
      for (const p of paths) assert.ok(got.includes(p), `expected ${p} among ${JSON.stringify(got)}`);
    } else assert.equal(body.details, undefined);
    return body;
  }

  describe('CycloneDX', () => {
    it('missing required fields → 422 invalid_sbom with their pointers', async () => {
      const doc = fixtureJson(LARAVEL);
      delete doc.components[0].name;
      delete doc.components[3].type;
      await expectError(doc, 422, 'invalid_sbom', ['/components/0/name', '/components/3/type']);
    });
    it('wrong types → 422 invalid_sbom', async () => {
      const doc = fixtureJson(LARAVEL);
      doc.components[1].version = 42;
      doc.version = 'one';
      await expectError(doc, 422, 'invalid_sbom', ['/components/1/version', '/version']);
    });
    it('a duplicate component (keys in another order) breaks uniqueItems → 422 with its pointer', async () => {
      const doc = fixtureJson(LARAVEL);
      const copy = Object.fromEntries(Object.entries(doc.components[5]).reverse());
      doc.components.push(copy);
      const body = await expectError(doc, 422, 'invalid_sbom', [`/components/${doc.components.length - 1}`]);
      assert.match(body.details[0].message, /duplicates item 5/);
    });
    it('duplicates nested in a component, or among dependsOn strings, are found too', async () => {
      const doc = cycloneDx16(2);
      const part = { type: 'library', name: 'part', version: '1' };
      doc.components[1].components = [part, { version: '1', name: 'part', type: 'library' }];
      await expectError(doc, 422, 'invalid_sbom', ['/components/1/components/1']);
      const deps = cycloneDx16(2);
      deps.dependencies = [{ ref: 'device', dependsOn: ['pkg:npm/lib-0@1.0.0', 'pkg:npm/lib-1@1.0.1', 'pkg:npm/lib-0@1.0.0'] }];
      await expectError(deps, 422, 'invalid_sbom', ['/dependencies/0/dependsOn/2']);
    });
    it('specVersion missing → invalid_sbom; unknown → unsupported_sbom_format', async () => {
      const doc = cycloneDx16(1);
      delete doc.specVersion;
      await expectError(doc, 422, 'invalid_sbom', ['/specVersion']);
      for (const v of ['1.1', '1.8', '2.0']) await expectError({ ...cycloneDx16(1), specVersion: v }, 422, 'unsupported_sbom_format');
    });
    it('a wrong bomFormat → unsupported_sbom_format', async () => {
      await expectError({ ...cycloneDx16(1), bomFormat: 'CycloneDx' }, 422, 'unsupported_sbom_format');
      await expectError({ ...cycloneDx16(1), bomFormat: 'SPDX' }, 422, 'unsupported_sbom_format');
    });
    it('every supported version validates against its own schema', async () => {
      for (const v of ['1.5', '1.6', '1.7']) {
        const res = await post({ ...cycloneDx16(2), specVersion: v });
        assert.equal(res.statusCode, 201, `${v}: ${res.body}`);
        assert.equal(res.json().spec_version, v);
      }
      // The component type "cryptographic-asset" exists from 1.6 on: the 1.2 schema rejects it.
      const crypto = cycloneDx16(1);
      crypto.components[0].type = 'cryptographic-asset';
      assert.equal((await post(crypto)).statusCode, 201);
      await expectError({ ...crypto, specVersion: '1.2', serialNumber: cycloneDx16(0).serialNumber }, 422, 'invalid_sbom', [
        '/components/0/type',
      ]);
    });
  });

  describe('SPDX 2', () => {
    it('missing required fields → invalid_sbom', async () => {
      const doc = fixtureJson(SPDX23);
      delete doc.packages[0].name;
      delete doc.packages[1].downloadLocation;
      delete doc.creationInfo.created;
      delete doc.documentNamespace;
      await expectError(doc, 422, 'invalid_sbom', [
        '/packages/0/name',
        '/packages/1/downloadLocation',
        '/creationInfo/created',
        '/documentNamespace',
      ]);
    });
    it('SPDX 2.2 requires the licence and copyright fields 2.3 made optional', async () => {
      const doc = fixtureJson(SPDX22);
      delete doc.packages[2].licenseConcluded;
      delete doc.packages[2].copyrightText;
      await expectError(doc, 422, 'invalid_sbom', ['/packages/2/licenseConcluded', '/packages/2/copyrightText']);
      const as23 = { ...fixtureJson(SPDX22), spdxVersion: 'SPDX-2.3' };
      delete as23.packages[2].licenseConcluded;
      assert.equal((await post(as23)).statusCode, 201);
    });
    it('wrong types and duplicate SPDXIDs → invalid_sbom', async () => {
      const doc = fixtureJson(SPDX23);
      doc.packages[0].versionInfo = 3;
      doc.creationInfo.creators = 'Tool: x';
      doc.packages[2].SPDXID = doc.packages[1].SPDXID;
      await expectError(doc, 422, 'invalid_sbom', ['/packages/0/versionInfo', '/creationInfo/creators', '/packages/2/SPDXID']);
    });
    it('an unknown spdxVersion → unsupported_sbom_format', async () => {
      await expectError({ ...fixtureJson(SPDX23), spdxVersion: 'SPDX-2.1' }, 422, 'unsupported_sbom_format');
    });
  });

  describe('SPDX 3', () => {
    it('structure problems → invalid_sbom', async () => {
      const doc = fixtureJson(SPDX3);
      const pkg = doc['@graph'].findIndex((n: any) => n.type === 'software_Package');
      delete doc['@graph'][pkg].name;
      const rel = doc['@graph'].findIndex((n: any) => n.type === 'Relationship');
      doc['@graph'][rel].creationInfo = '_:nowhere';
      await expectError(doc, 422, 'invalid_sbom', [`/@graph/${pkg}/name`, `/@graph/${rel}/creationInfo`]);
      const noDocument = fixtureJson(SPDX3);
      noDocument['@graph'] = noDocument['@graph'].filter((n: any) => n.type !== 'SpdxDocument');
      await expectError(noDocument, 422, 'invalid_sbom', ['/@graph']);
      const noGraph = fixtureJson(SPDX3);
      delete noGraph['@graph'];
      await expectError(noGraph, 422, 'invalid_sbom', ['/@graph']);
    });
    it('another JSON-LD context or SPDX version → unsupported_sbom_format', async () => {
      await expectError({ ...fixtureJson(SPDX3), '@context': 'https://schema.org/' }, 422, 'unsupported_sbom_format');
      await expectError(
        { ...fixtureJson(SPDX3), '@context': 'https://spdx.org/rdf/3.1/spdx-context.jsonld' },
        422,
        'unsupported_sbom_format',
      );
    });
  });

  describe('not an SBOM, not JSON', () => {
    it('JSON that is neither format → unsupported_sbom_format', async () => {
      for (const doc of [{ hello: 'world' }, [1, 2], 'a string', 42, null])
        await expectError(JSON.stringify(doc), 422, 'unsupported_sbom_format');
    });
    it('unparseable JSON, an empty body and prototype poisoning → 400 invalid_json', async () => {
      await expectError('{"bomFormat": "CycloneDX",', 400, 'invalid_json');
      await expectError('', 400, 'invalid_json');
      await expectError('{"bomFormat":"CycloneDX","specVersion":"1.6","__proto__":{"polluted":true}}', 400, 'invalid_json');
      await expectError(
        '{"bomFormat":"CycloneDX","specVersion":"1.6","components":[{"constructor":{"prototype":{"polluted":true}}}]}',
        400,
        'invalid_json',
      );
      // The same keys spelled with \u escapes.
      await expectError(
        '{"bomFormat":"CycloneDX","specVersion":"1.6","\\u005f\\u005fproto\\u005f\\u005f":{"polluted":true}}',
        400,
        'invalid_json',
      );
      await expectError(
        '{"bomFormat":"CycloneDX","specVersion":"1.6","components":[{"\\u0063onstructor":{"prototype":{"polluted":true}}}]}',
        400,
        'invalid_json',
      );
      assert.equal(({} as Record<string, unknown>).polluted, undefined);
    });
    it('a body not sent as JSON → 415', async () => {
      for (const type of ['text/plain', 'application/xml', 'application/x-www-form-urlencoded']) {
        const res = await post(fixtureBytes(LARAVEL), type);
        assert.equal(res.statusCode, 415, type);
        assert.equal(res.json().code, 'unsupported_media_type');
      }
      const none = await h.request({ method: 'POST', url: url('RTR-1'), key: acme.key, payload: fixtureBytes(LARAVEL) });
      assert.equal(none.statusCode, 415);
    });
  });

  describe('products', () => {
    it('unknown SKU or another organisation’s → 404 product_not_found', async () => {
      const res = await post(cycloneDx16(1), 'application/json', 'NOPE');
      assert.equal(res.statusCode, 404);
      assert.equal(res.json().code, 'product_not_found');
      const other = await h.tenant('other', ['products:write']);
      await h.products.addProduct('other', 'THEIRS', { name: 'Theirs' });
      const theirs = await post(cycloneDx16(1), 'application/json', 'THEIRS');
      assert.equal(theirs.statusCode, 404);
      assert.equal(theirs.json().code, 'product_not_found');
      const mine = await h.request({
        method: 'POST',
        url: url('THEIRS'),
        key: other.key,
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify(cycloneDx16(1)),
      });
      assert.equal(mine.statusCode, 201);
    });
    it('archived product → 409 product_archived', async () => {
      await h.products.addProduct('acme', 'OLD-1', { name: 'Old' });
      await h.products.archiveProduct('acme', 'OLD-1');
      const res = await post(cycloneDx16(1), 'application/json', 'OLD-1');
      assert.equal(res.statusCode, 409);
      assert.equal(res.json().code, 'product_archived');
    });
  });
});

describe('SBOM ingest: size limit', () => {
  let h: Harness;
  let acme: Tenant;
  const teardown = suiteTeardown();
  before(async () => {
    h = await buildHarness(teardown, { SBOM_MAX_BYTES: '4096' });
    acme = await h.tenant('acme', ['products:write']);
    await h.products.addProduct('acme', 'RTR-1', { name: 'Router' });
  });

  it('413 payload_too_large over SBOM_MAX_BYTES; a document under it is accepted', async () => {
    const big = await h.request({
      method: 'POST',
      url: url('RTR-1'),
      key: acme.key,
      headers: { 'content-type': 'application/json' },
      payload: fixtureBytes(LARAVEL),
    });
    assert.equal(big.statusCode, 413);
    assert.equal(big.json().code, 'payload_too_large');
    const small = JSON.stringify(cycloneDx16(2));
    assert.ok(small.length < 4096);
    const ok = await h.request({
      method: 'POST',
      url: url('RTR-1'),
      key: acme.key,
      headers: { 'content-type': 'application/json' },
      payload: small,
    });
    assert.equal(ok.statusCode, 201, ok.body);
  });
});
