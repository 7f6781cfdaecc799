import assert from 'node:assert/strict';
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
  const chance = (p: number) => rand() < p;
  const junk = (n: number) => Array.from({ length: n }, () => String.fromCharCode(Math.floor(rand() * 256))).join('');

  const methods = ['GET', 'POST', 'POST', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'PROPFIND', 'SEARCH', 'get', 'FOO', 'G T', 'CONNECT'];
  const paths = ['/api/v1/external/incidents', '/api/v1/external/products', '/api/v1/external/compliance-score', '/api/v1/external/products/P-1/sbom', '/v1/incidents', '/v1/products', '/swagger/openapi.json', '/swagger/static/../../etc/passwd', '/healthz', '/readyz', '/docs', '/nowhere'];
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
  const contentTypes = ['application/json', 'application/json', 'text/plain', 'application/x-www-form-urlencoded', 'application/vnd.cyclonedx+json', 'application/json; charset=latin1', junk(6)];

  return function next(): string | Buffer {
    const method = pick(methods);
    const path = pick(pathMutations)(pick(paths));
    const body = pick(bodies)();
    const lines = [`${method} ${path} HTTP/1.1`];
    const host = pick(['localhost', 'localhost', 'api.example', 'evil.example', '', null]);
    if (host !== null) lines.push(`Host: ${host}`);
    if (chance(0.6)) lines.push(`X-CRA-API-Key: ${pick([key, key, 'cra_wrong', `${key.slice(0, -1)}x`, junk(10)])}`);
    if (chance(0.15)) lines.push(`Authorization: ${pick(['Bearer', 'Bearer  ', `bearer ${key}`, 'Basic eDp5', junk(12)])}`);
    if (chance(0.8)) lines.push(`Content-Type: ${pick(contentTypes)}`);
    if (chance(0.05)) lines.push(`${junk(5)}: ${junk(5)}`);
    if (chance(0.05)) lines.push(`X-Big: ${'a'.repeat(17_000)}`);
    if (chance(0.05)) lines.push(`Expect: ${pick(['100-continue', 'bogus'])}`);
    const bytes = Buffer.from(body, 'latin1');
    const framing = rand();
    if (framing < 0.7) lines.push(`Content-Length: ${bytes.length}`);
    else if (framing < 0.8) return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\nTransfer-Encoding: chunked\r\n\r\n${bytes.length.toString(16)}\r\n`), bytes, Buffer.from('\r\n0\r\n\r\n')]);
    else if (framing < 0.85) return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n`), bytes]);
    else if (framing < 0.9) lines.push(`Content-Length: ${Math.max(0, bytes.length - 3)}`);
    else if (framing < 0.93) lines.push(`Content-Length: ${bytes.length + 10}`);
    else if (framing < 0.96) lines.push(`Content-Length: -1`);
    return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), bytes]);
  };
}

/** Why this answer breaks the contract, or null. */
function violation(response: RawResponse): string | null {
  if (response.status === 0) return 'no answer';
  if (response.status >= 500) return `status ${response.status}`;
  if (response.status < 400) return null;
  try {
    const body = JSON.parse(response.body) as Record<string, unknown>;
    if (typeof body.errore !== 'string' || typeof body.code !== 'string' || typeof body.request_id !== 'string') return 'error body lacks errore/code/request_id';
  } catch {
    return 'error body is not JSON';
  }
  return null;
}

describe('generated bad requests (server process, raw sockets)', () => {
  let t: TenantServer;
  before(async () => {
    t = await startTenantServer({ API_HOSTS: 'api.example', HEADERS_TIMEOUT_MS: '1000', REQUEST_TIMEOUT_MS: '1500', SBOM_REQUEST_TIMEOUT_MS: '1500', RATE_LIMIT_PER_MINUTE: '100000' });
  });
  after(async () => t?.stop());

  it(`answers each of up to ${COUNT} with success or the JSON error body, never 5xx (seed ${SEED})`, async () => {
    const next = generator(random(SEED), t.key);
    const requests = Array.from({ length: COUNT }, next);
    const started = Date.now();
    const failures: string[] = [];
    let sent = 0;
    const worker = async () => {
      while (sent < requests.length && Date.now() - started < BUDGET_MS) {
        const index = sent++;
        const request = requests[index]!;
        const problem = violation(await rawRequest(t.server.port, request, { timeoutMs: 5000 }));
        if (problem) failures.push(`#${index} ${problem}: ${JSON.stringify(request.toString('latin1').slice(0, 300))}`);
      }
    };
    await Promise.all(Array.from({ length: PARALLEL }, worker));
    assert.deepEqual(failures.slice(0, 5), [], `${failures.length} of ${sent} broke the contract`);
    assert.ok(sent >= Math.min(COUNT, 200), `only ${sent} sent within the time budget`);
    assert.equal((await fetch(`${t.server.url}/healthz`)).status, 200, 'the process is still up');
    assert.equal(/"level":50/.test(t.server.logs()), false, t.server.logs().split('\n').find((l) => l.includes('"level":50')));
  });
});
