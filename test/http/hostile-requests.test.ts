import assert from 'node:assert/strict';
import { assertNoErrorLogged } from '../helpers/server.js';
import { after, before, describe, it } from 'node:test';
import { rawRequest } from '../helpers/raw-http.js';
import { assertErrorBody, startTenantServer, type TenantServer } from '../helpers/tenant-server.js';

// Hostile and malformed requests against the server as a process, over raw sockets so nothing
// on the client side tidies them up first (decisions §4: every answer is the JSON error body).

const HOST = 'Host: localhost\r\n';

describe('hostile or malformed requests (server process, raw sockets)', () => {
  let t: TenantServer;
  const send = (request: string | Buffer) => rawRequest(t.server.port, request);
  before(async () => {
    t = await startTenantServer({ API_HOSTS: 'api.example' });
  });
  after(async () => t?.stop());

  it('what Node or the router refuses before any route still gets the JSON error body', async () => {
    const cases: Array<[string, string, number, string]> = [
      ['bad percent-encoding', `GET /api/v1/external/products%zz HTTP/1.1\r\n${HOST}\r\n`, 400, 'bad_request'],
      [
        'SKU over 100 characters',
        `POST /api/v1/external/products/${'A'.repeat(101)}/sbom HTTP/1.1\r\n${HOST}Content-Length: 0\r\n\r\n`,
        414,
        'uri_too_long',
      ],
      ['malformed header', `GET /healthz HTTP/1.1\r\n${HOST}Bad Header: x\r\n\r\n`, 400, 'bad_request'],
      [
        'malformed chunk',
        `POST /api/v1/external/incidents HTTP/1.1\r\n${HOST}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n`,
        400,
        'bad_request',
      ],
      [
        'Content-Length with chunked',
        `POST /api/v1/external/incidents HTTP/1.1\r\n${HOST}Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
        400,
        'bad_request',
      ],
      [
        'two Content-Lengths',
        `POST /api/v1/external/incidents HTTP/1.1\r\n${HOST}Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}`,
        400,
        'bad_request',
      ],
      ['lower-case method', `get /healthz HTTP/1.1\r\n${HOST}\r\n`, 400, 'bad_request'],
      ['unknown method', `FOO /api/v1/external/products HTTP/1.1\r\n${HOST}\r\n`, 400, 'bad_request'],
      ['unknown HTTP version', `GET /healthz HTTP/9.9\r\n${HOST}\r\n`, 400, 'bad_request'],
      ['header over 16 KiB', `GET /healthz HTTP/1.1\r\n${HOST}X-Big: ${'a'.repeat(17_000)}\r\n\r\n`, 431, 'header_too_large'],
      ['no Host header', 'GET /healthz HTTP/1.1\r\n\r\n', 400, 'bad_request'],
      [
        'Expect: bogus',
        `POST /api/v1/external/incidents HTTP/1.1\r\n${HOST}Expect: bogus\r\nContent-Length: 2\r\n\r\n{}`,
        417,
        'expectation_failed',
      ],
      ['CONNECT', `CONNECT localhost:80 HTTP/1.1\r\n${HOST}\r\n`, 400, 'bad_request'],
    ];
    for (const [label, request, status, code] of cases) assertErrorBody(await send(request), status, code, label);
  });

  it('a path climbing out of the Swagger assets is 404, never 500', async () => {
    for (const path of [
      '/swagger/static/../../../../etc/passwd',
      '/swagger/static/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd',
      '/swagger/static/..%2f..%2f..%2fetc%2fpasswd',
    ]) {
      const response = await send(`GET ${path} HTTP/1.1\r\n${HOST}\r\n`);
      assertErrorBody(response, 404, 'not_found', path);
      assert.equal(response.body.includes('root:'), false);
    }
  });

  it('TRACE, PROPFIND, SEARCH and the other methods Node knows answer 405 with Allow on API paths', async () => {
    for (const method of ['TRACE', 'PROPFIND', 'SEARCH', 'MKCOL', 'PURGE', 'QUERY', 'LOCK']) {
      const full = await send(`${method} /api/v1/external/products HTTP/1.1\r\n${HOST}Content-Length: 0\r\n\r\n`);
      assertErrorBody(full, 405, 'method_not_allowed', method);
      assert.equal(full.headers.allow, 'GET', method);
      const short = await send(`${method} /v1/incidents HTTP/1.1\r\nHost: api.example\r\nContent-Length: 0\r\n\r\n`);
      assertErrorBody(short, 405, 'method_not_allowed', `${method} short form`);
      assert.equal(short.headers.allow, 'POST');
    }
    assertErrorBody(await send(`PROPFIND /nowhere HTTP/1.1\r\n${HOST}\r\n`), 404, 'not_found', 'an unknown path stays 404');
  });

  it('a path that exists on no host is 404 whatever the body, which is never read', async () => {
    const big = 'x'.repeat(70_000);
    const onApiHost = await send(
      `POST /v1/products/X/sbom HTTP/1.1\r\nHost: api.example\r\nContent-Type: application/json\r\nContent-Length: ${big.length}\r\n\r\n${big}`,
    );
    assertErrorBody(onApiHost, 404, 'not_found', 'SBOM has no short form');
    // 50 MiB declared, none of it sent: the answer comes at once and the connection closes.
    const declared = await send(
      `POST /nowhere HTTP/1.1\r\n${HOST}Content-Type: application/json\r\nContent-Length: ${50 * 1024 * 1024}\r\n\r\n`,
    );
    assertErrorBody(declared, 404, 'not_found', 'declared body');
    assert.ok(declared.elapsedMs < 2000 && declared.closed);
  });

  it('text PostgreSQL cannot store (NUL) is the same 422 naming the field on both backends; %00 in the SKU path is 404', async () => {
    const post = (body: string) =>
      send(
        `POST /api/v1/external/incidents HTTP/1.1\r\n${HOST}X-CRA-API-Key: ${t.key}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
    for (const field of ['description', 'title', 'sku', 'gtin']) {
      const body = JSON.stringify({ description: 'ok', [field]: 'a\u0000b' });
      const answer = assertErrorBody(await post(body), 422, 'validation_failed', field);
      assert.deepEqual(answer.details, [{ path: `/${field}`, message: 'contains a NUL character (U+0000), which cannot be stored' }]);
      assert.match(String(answer.errore), new RegExp(`^${field} `));
    }
    const lone = assertErrorBody(await post('{"description":"lone \\ud800 surrogate"}'), 422, 'validation_failed', 'lone surrogate');
    assert.deepEqual(
      (lone.details as Array<{ path: string }>).map((d) => d.path),
      ['/description'],
    );
    const accepted = await post(JSON.stringify({ description: 'ok after all' }));
    assert.equal(accepted.status, 201, accepted.body);

    const sbom = (sku: string) =>
      send(
        `POST /api/v1/external/products/${sku}/sbom HTTP/1.1\r\n${HOST}X-CRA-API-Key: ${t.key}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`,
      );
    assertErrorBody(await sbom('P%00-1'), 404, 'product_not_found', '%00 in the SKU');
    const empty = assertErrorBody(await sbom(''), 422, 'validation_failed', 'empty SKU');
    assert.equal(empty.errore, 'the path parameters are invalid', 'says which part of the request failed');
    assert.deepEqual(
      (empty.details as Array<{ path: string }>).map((d) => d.path),
      ['/sku'],
    );
  });

  it('a valid key passes from an address whose bad keys went over the limit', async () => {
    const products = (key: string) => send(`GET /api/v1/external/products HTTP/1.1\r\n${HOST}X-CRA-API-Key: ${key}\r\n\r\n`);
    let refused = 0;
    for (let i = 0; i <= 30 && refused !== 429; i++) refused = (await products('cra_wrong')).status;
    assert.equal(refused, 429, 'at most 30 failures from one address');
    assertErrorBody(await products('cra_wrong'), 429, 'rate_limited');
    assert.equal((await products(t.key)).status, 200);
  });

  it('the OpenAPI servers never echo a foreign Host header', async () => {
    const document = await send(`GET /swagger/openapi.json HTTP/1.1\r\nHost: evil.example\r\n\r\n`);
    assert.equal(document.status, 200);
    assert.equal(document.body.includes('evil.example'), false);
    const own = await send(`GET /swagger/openapi.json HTTP/1.1\r\nHost: api.example\r\n\r\n`);
    assert.ok(JSON.parse(own.body).servers.some((s: { url: string }) => s.url === 'http://api.example/api/v1/external'));
  });

  it('logged no internal error for any of it', () => {
    assertNoErrorLogged(t.server);
  });
});
