import assert from 'node:assert/strict';
import { assertNoErrorLogged } from '../helpers/server.js';
import { after, before, describe, it } from 'node:test';
import { rawRequest, type RawResponse } from '../helpers/raw-http.js';
import { startTenantServer, type TenantServer } from '../helpers/tenant-server.js';

// A generated pass of bad requests (deterministic seed, bounded count and time) against the
// server process: every answer is either a success or the contract's JSON error body, never a
// 5xx, never silence; the process stays up and logs no internal error.

const SEED = 20261122;
const COUNT = 1200;
const BUDGET_MS = 40_000;
const PARALLEL = 6;

/** mulberry32: small, fast, and the same sequence on every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function generator(rand: () => number, key: string) {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)]!;
  const _chance = (p: number) => rand() < p;
  const junk = (n: number) => Array.from({ length: n }, () => String.fromCharCode(Math.floor(rand() * 256))).join('');

  const methods = [
    'GET',
    'POST',
    'POST',
    'POST',
    'PUT',
    'DELETE',
    'PATCH',
    'OPTIONS',
    'TRACE',
    'PROPFIND',
    'SEARCH',
    'get',
    'FOO',
    'G T',
    'CONNECT',
  ];
  const paths = [
    '/api/v1/external/incidents',
    '/api/v1/external/products',
    '/api/v1/external/compliance-score',
    '/api/v1/external/products/P-1/sbom',
    '/v1/incidents',
    '/v1/products',
    '/swagger/openapi.json',
    '/swagger/static/../../etc/passwd',
    '/healthz',
    '/readyz',
    '/docs',
    '/nowhere',
  ];
  const pathMutations = [
    (p: string) => p,
    (p: string) => `${p}%zz`,
    (p: string) => `${p}/%00`,
    (p: string) => p.replace('P-1', 'P%00-1'),
    (p: string) => p.replace('P-1', 'X'.repeat(50 + Math.floor(rand() * 200))),
    (p: string) => `${p}?${junk(8).replace(/[\s#]/g, 'q')}`,
    (p: string) => `${p}/..;/../%2e%2e/`,
    (p: string) => p.toUpperCase(),
    (p: string) => `//${p}`,
    (p: string) => encodeURI(`${p}/${junk(4)}`),
  ];
  const bodies = [
    () => JSON.stringify({ description: 'fuzz report', title: 't', sku: 'P-1' }),
    () => JSON.stringify({ description: `a${String.fromCharCode(0)}b`, gtin: '\ud800' }),
    () => JSON.stringify({ description: 1, cve: 'CVE-1' }),
    () => '{"__proto__":{"x":1},"description":"p"}',
    () => '{"constructor":{"prototype":{"x":1}},"description":"p"}',
    () => '['.repeat(5000) + ']'.repeat(5000),
    () => JSON.stringify({ bomFormat: 'CycloneDX', specVersion: '1.6', components: [{ name: `n${String.fromCharCode(0)}` }] }),
    () => '{"description":"truncated',
    () => junk(64),
    () => '',
  ];
  const contentTypes = [
    'application/json',
    'application/json',
    'text/plain',
    'application/x-www-form-urlencoded',
    'application/vnd.cyclonedx+json',
    'application/json; charset=latin1',
    junk(6),
  ];

  const printable = (n: number) => Array.from({ length: n }, () => String.fromCharCode(33 + Math.floor(rand() * 94))).join('');

  /** A valid request of one of the operations, then one to three mutations of any of its parts. */
  return function next(): Buffer {
    const operation = pick([
      { method: 'POST', path: '/api/v1/external/incidents', body: JSON.stringify({ description: 'fuzz report', title: 't', sku: 'P-1' }) },
      { method: 'GET', path: '/api/v1/external/products', body: '' },
      { method: 'GET', path: '/api/v1/external/compliance-score', body: '' },
      {
        method: 'POST',
        path: '/api/v1/external/products/P-1/sbom',
        body: JSON.stringify({ bomFormat: 'CycloneDX', specVersion: '1.6', version: 1, components: [] }),
      },
      { method: 'POST', path: '/v1/incidents', body: JSON.stringify({ description: 'short form' }) },
    ]);
    let { method, path, body } = operation;
    let host: string | null = pick(['localhost', 'api.example']);
    const headers = new Map<string, string>([['X-CRA-API-Key', key]]);
    if (body) headers.set('Content-Type', 'application/json');
    let framing = 'length';
    const mutations = [
      () => (method = pick(methods)),
      () => (path = pick(pathMutations)(pick([path, ...paths]))),
      () => (body = pick(bodies)()),
      () => (host = pick(['evil.example', '', null, '[::1]:8080', `${printable(10)}`])),
      () => headers.set('X-CRA-API-Key', pick(['cra_wrong', `${key.slice(0, -1)}x`, printable(40), ''])),
      () => headers.set('Authorization', pick(['Bearer', `bearer ${key}`, `Bearer ${generateLike(key)}`, 'Basic eDp5', printable(12)])),
      () => headers.set('Content-Type', pick(contentTypes)),
      () => headers.delete('Content-Type'),
      () => headers.set(pick(['X-Junk', printable(5)]), junk(5)),
      () => headers.set('X-Big', 'a'.repeat(17_000)),
      () => headers.set('Expect', 'bogus'),
      () => (framing = pick(['chunked', 'bad-chunk', 'shorter', 'longer', 'negative'])),
    ];
    for (let i = 1 + Math.floor(rand() * 3); i > 0; i--) pick(mutations)();

    const lines = [`${method} ${path} HTTP/1.1`];
    if (host !== null) lines.push(`Host: ${host}`);
    for (const [name, value] of headers) lines.push(`${name}: ${value}`);
    const bytes = Buffer.from(body, 'latin1');
    const head = (extra: string) => Buffer.from(`${[...lines, extra].join('\r\n')}\r\n\r\n`, 'latin1');
    switch (framing) {
      case 'chunked':
        return Buffer.concat([
          head('Transfer-Encoding: chunked'),
          Buffer.from(`${bytes.length.toString(16)}\r\n`),
          bytes,
          Buffer.from('\r\n0\r\n\r\n'),
        ]);
      case 'bad-chunk':
        return Buffer.concat([head('Transfer-Encoding: chunked'), Buffer.from('zz\r\n'), bytes]);
      case 'shorter':
        return Buffer.concat([head(`Content-Length: ${Math.max(0, bytes.length - 3)}`), bytes]);
      case 'longer':
        return Buffer.concat([head(`Content-Length: ${bytes.length + 10}`), bytes]);
      case 'negative':
        return Buffer.concat([head('Content-Length: -1'), bytes]);
      default:
        return Buffer.concat([head(`Content-Length: ${bytes.length}`), bytes]);
    }
  };
}

/** A key of the right shape and length that is not `key`. */
function generateLike(key: string): string {
  return `${key.slice(0, 10)}${[...key.slice(10)].reverse().join('')}`;
}

/** Why this answer breaks the contract, or null. */
function violation(response: RawResponse): string | null {
  if (response.status === 0) return 'no answer';
  if (response.status >= 500) return `status ${response.status}`;
  if (response.status < 400) return null;
  try {
    const body = JSON.parse(response.body) as Record<string, unknown>;
    if (typeof body.errore !== 'string' || typeof body.code !== 'string' || typeof body.request_id !== 'string')
      return 'error body lacks errore/code/request_id';
  } catch {
    return 'error body is not JSON';
  }
  return null;
}

describe('generated bad requests (server process, raw sockets)', () => {
  let t: TenantServer;
  before(async () => {
    t = await startTenantServer({
      API_HOSTS: 'api.example',
      HEADERS_TIMEOUT_MS: '1000',
      REQUEST_TIMEOUT_MS: '1500',
      SBOM_REQUEST_TIMEOUT_MS: '1500',
      RATE_LIMIT_PER_MINUTE: '100000',
      // A chunked SBOM upload reserves the whole SBOM_MAX_BYTES of the in-memory bound until it
      // is answered (503 beyond the bound, by design: test/sbom/hostile-documents). Room for every
      // parallel sender keeps that 503 out of this pass, which looks for unintended 5xx answers.
      SBOM_INFLIGHT_BYTES: String(PARALLEL * 50 * 1024 * 1024),
    });
  });
  after(async () => t?.stop());

  it(`answers each of up to ${COUNT} with success or the JSON error body, never 5xx (seed ${SEED})`, async () => {
    const next = generator(random(SEED), t.key);
    const requests = Array.from({ length: COUNT }, next);
    const started = Date.now();
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    let sent = 0;
    const worker = async () => {
      while (sent < requests.length && Date.now() - started < BUDGET_MS) {
        const index = sent++;
        const request = requests[index]!;
        const response = await rawRequest(t.server.port, request, { timeoutMs: 20_000 });
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        const problem = violation(response);
        if (problem) failures.push(`#${index} ${problem}: ${JSON.stringify(request.toString('latin1').slice(0, 300))}`);
      }
    };
    await Promise.all(Array.from({ length: PARALLEL }, worker));
    assert.deepEqual(failures.slice(0, 5), [], `${failures.length} of ${sent} broke the contract`);
    assert.ok(sent >= Math.min(COUNT, 200), `only ${sent} sent within the time budget`);
    // The generator reaches every layer: parser, router, auth, body checks and the handlers.
    for (const status of [201, 400, 401, 404, 405, 415, 422, 431])
      assert.ok(statuses.has(status), `no ${status} among ${JSON.stringify([...statuses])}`);
    assert.equal((await fetch(`${t.server.url}/healthz`)).status, 200, 'the process is still up');
    assertNoErrorLogged(t.server);
  });
});
