import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { buildHarness, type Harness, type Tenant, suiteTeardown } from '../helpers/app.js';

const PRODUCTS = '/api/v1/external/products';

describe('response compression', () => {
  let h: Harness;
  let acme: Tenant;
  let plain: string;
  const teardown = suiteTeardown();
  const get = (headers: Record<string, string>, url = PRODUCTS, key = acme.key) => h.request({ method: 'GET', url, key, headers });

  before(async () => {
    h = await buildHarness(teardown);
    acme = await h.tenant('acme', ['products:read', 'incidents:write']);
    for (let i = 0; i < 40; i++)
      await h.products.addProduct('acme', `SKU-${String(i).padStart(3, '0')}`, { name: `Product ${i}`, firmwareVersion: '1.0.0' });
    const res = await get({});
    plain = res.body;
    assert.ok(plain.length > 8192, 'a catalogue large enough to take the streaming path too');
  });

  it('sends the identical uncompressed body when the client does not ask (or asks for identity)', async () => {
    for (const headers of [{}, { 'accept-encoding': 'identity' }, { 'accept-encoding': 'compress' }] as Array<Record<string, string>>) {
      const res = await get(headers);
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['content-encoding'], undefined, JSON.stringify(headers));
      assert.equal(res.headers.vary, undefined);
      assert.equal(res.body, plain);
    }
  });

  it('gzip and brotli when accepted, brotli preferred; the body decompresses to the same bytes', async () => {
    const gz = await get({ 'accept-encoding': 'gzip' });
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.equal(gz.headers.vary, 'accept-encoding');
    assert.equal(gunzipSync(gz.rawPayload).toString('utf8'), plain);
    assert.ok(gz.rawPayload.length < plain.length / 4, `gzip: ${gz.rawPayload.length} of ${plain.length} bytes`);

    const br = await get({ 'accept-encoding': 'gzip, deflate, br' });
    assert.equal(br.headers['content-encoding'], 'br');
    assert.equal(brotliDecompressSync(br.rawPayload).toString('utf8'), plain);
    assert.equal(br.headers['x-ratelimit-limit'], gz.headers['x-ratelimit-limit'], 'headers are kept');
    assert.match(br.headers['x-request-id'] as string, /^[0-9a-f-]{36}$/);

    const deflateOnly = await get({ 'accept-encoding': 'deflate' });
    assert.equal(deflateOnly.headers['content-encoding'], undefined, 'deflate is not offered');
    assert.equal(deflateOnly.body, plain);
  });

  it('leaves small bodies alone (error bodies, IncidentCreated)', async () => {
    const unauthorised = await get({ 'accept-encoding': 'gzip, br' }, PRODUCTS, 'cra_wrong');
    assert.equal(unauthorised.statusCode, 401);
    assert.equal(unauthorised.headers['content-encoding'], undefined);
    assert.equal(unauthorised.json().code, 'unauthorized');
    const created = await h.request({
      method: 'POST',
      url: '/api/v1/external/incidents',
      key: acme.key,
      headers: { 'accept-encoding': 'gzip, br', 'content-type': 'application/json' },
      payload: { description: 'small answer' },
    });
    assert.equal(created.statusCode, 201);
    assert.equal(created.headers['content-encoding'], undefined);
  });

  it('does not decompress request bodies: a gzip-encoded JSON body is not read as JSON', async () => {
    const res = await h.request({
      method: 'POST',
      url: '/api/v1/external/incidents',
      key: acme.key,
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      payload: gzipSync(JSON.stringify({ description: 'zipped' })),
    });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().code, 'invalid_json');
  });
});
