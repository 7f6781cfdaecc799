import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import SwaggerParser from '@apidevtools/swagger-parser';
import { useHarness } from '../helpers/app.js';

describe('OpenAPI document and console', () => {
  const harness = useHarness({
    PRODUCTION_URL: 'https://api.cra.example.eu/',
    API_HOSTS: 'cra.internal',
    PUBLIC_URL: 'https://cra.example.eu/',
  });

  async function fetchDocument(host = 'cra.internal:8080', headers: Record<string, string> = {}) {
    const res = await harness().app.inject({ method: 'GET', url: '/swagger/openapi.json', headers: { host, ...headers } });
    return res;
  }

  it('is a valid OpenAPI 3.0.3 document, version 1.0.0, checked by swagger-parser', async () => {
    const res = await fetchDocument();
    assert.equal(res.statusCode, 200);
    const doc = res.json();
    assert.equal(doc.openapi, '3.0.3');
    assert.equal(doc.info.version, '1.0.0');
    await SwaggerParser.validate(structuredClone(doc));
  });

  it('lists this instance (scheme and host of the request) and production, both with the full prefix', async () => {
    const doc = (await fetchDocument('cra.internal:8080')).json();
    assert.deepEqual(
      doc.servers.map((s: { url: string }) => s.url),
      ['http://cra.internal:8080/api/v1/external', 'https://api.cra.example.eu/api/v1/external'],
    );
  });

  it('lists this instance only under one of its own names: PUBLIC_URL, API_HOSTS, loopback; never another Host', async () => {
    const servers = async (host: string) => (await fetchDocument(host)).json().servers.map((s: { url: string }) => s.url);
    assert.deepEqual(await servers('cra.example.eu'), [
      'http://cra.example.eu/api/v1/external',
      'https://api.cra.example.eu/api/v1/external',
    ]);
    for (const host of ['localhost:8080', '127.0.0.1:8080', '[::1]:8080', 'CRA.INTERNAL']) {
      assert.equal((await servers(host)).length, 2, host);
    }
    for (const host of ['evil.example', 'evil.example:8080', 'cra.internal.evil.example', '10.9.8.7', 'localhost.evil.example']) {
      assert.deepEqual(await servers(host), ['https://api.cra.example.eu/api/v1/external'], host);
    }
    const ui = await harness().app.inject({ method: 'GET', url: '/swagger/json', headers: { host: 'evil.example' } });
    assert.equal(ui.statusCode, 200);
    assert.equal(ui.body.includes('evil.example'), false, 'nor through the Swagger UI document');
  });

  it('rejects a Host header that is not a host name instead of echoing it', async () => {
    for (const host of ['evil.example/"><script>', 'a b', 'x@y']) {
      const res = await fetchDocument(host);
      assert.equal(res.statusCode, 400, host);
      assert.equal(res.json().code, 'invalid_host');
    }
  });

  it('describes every operation with both key schemes, its scope and its error responses', async () => {
    const doc = (await fetchDocument()).json();
    const operations = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({ path, method, op })),
    );
    assert.ok(operations.length >= 1);
    assert.ok(operations.some((o) => o.path === '/products' && o.method === 'get'));
    for (const { path, method, op } of operations) {
      assert.ok(!path.startsWith('/api/') && !path.startsWith('/v1/'), `${path} is relative to the server prefix`);
      assert.deepEqual(op.security, [{ ApiKeyHeader: [] }, { BearerAuth: [] }], `${method} ${path}`);
      assert.match(op.description, /scope `[a-z]+:(read|write)`/, `${method} ${path} names its scope`);
      for (const status of ['401', '403', '405', '429']) {
        assert.equal(
          op.responses[status]?.content?.['application/json']?.schema?.$ref,
          '#/components/schemas/Error',
          `${method} ${path} ${status}`,
        );
      }
      assert.ok(op.responses['429'].headers['Retry-After']);
    }
    assert.deepEqual(Object.keys(doc.components.securitySchemes).sort(), ['ApiKeyHeader', 'BearerAuth']);
    assert.equal(doc.components.securitySchemes.ApiKeyHeader.name, 'X-CRA-API-Key');
    assert.deepEqual(doc.components.schemas.Error.required, ['errore', 'code', 'request_id']);
  });

  it("says which bodies are refused: not UTF-8 (every body), and beyond the organisation's share (SBOM ingest)", async () => {
    const doc = (await fetchDocument()).json();
    for (const path of ['/incidents', '/products/{sku}/sbom']) {
      assert.match(doc.paths[path].post.responses['400'].description, /not UTF-8 text/, path);
    }
    assert.match(doc.paths['/products/{sku}/sbom'].post.responses['503'].description, /this organisation's bodies hold its share/);
  });

  it('keeps short forms, 405 answers and infrastructure routes out of the document', async () => {
    const doc = (await fetchDocument()).json();
    const paths = Object.keys(doc.paths);
    assert.ok(
      paths.every((p) => !/^\/(v1|swagger|docs|healthz|readyz)/.test(p)),
      paths.join(','),
    );
    for (const item of Object.values(doc.paths as Record<string, Record<string, unknown>>)) {
      assert.equal(Object.keys(item).length, 1, 'one method per path');
    }
  });

  it('serves Swagger UI at /swagger from its own assets and redirects /docs there', async () => {
    const h = harness();
    const docs = await h.app.inject({ method: 'GET', url: '/docs' });
    assert.equal(docs.statusCode, 302);
    assert.equal(docs.headers.location, '/swagger');
    const ui = await h.app.inject({ method: 'GET', url: '/swagger/' });
    assert.equal(ui.statusCode, 200);
    assert.match(ui.headers['content-type'] as string, /text\/html/);
    const scripts = [...ui.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    assert.ok(scripts.length > 0);
    for (const asset of scripts) assert.ok(!/^(https?:)?\/\//.test(asset), `asset ${asset} is served locally`);
    assert.match(ui.headers['content-security-policy'] as string, /default-src 'self'/);
    const init = await h.app.inject({ method: 'GET', url: '/swagger/static/swagger-initializer.js' });
    assert.equal(init.statusCode, 200);
    assert.match(init.body, /validatorUrl: null/);
  });
});
