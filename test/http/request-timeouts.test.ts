import assert from 'node:assert/strict';
import { assertNoErrorLogged } from '../helpers/server.js';
import { after, before, describe, it } from 'node:test';
import { rawRequest } from '../helpers/raw-http.js';
import { assertErrorBody, startTenantServer, type TenantServer } from '../helpers/tenant-server.js';

// Requests that never finish arriving are cut off with 408 and a closed connection, each kind
// at its configured deadline (short ones here; the defaults are 10 s, 30 s and 10 min).

const HEADERS_MS = 400;
const REQUEST_MS = 800;
const SBOM_MS = 2500;

describe('request deadlines (server process, raw sockets)', () => {
  let t: TenantServer;
  before(async () => {
    t = await startTenantServer({
      HEADERS_TIMEOUT_MS: String(HEADERS_MS),
      REQUEST_TIMEOUT_MS: String(REQUEST_MS),
      SBOM_REQUEST_TIMEOUT_MS: String(SBOM_MS),
    });
  });
  after(async () => t?.stop());

  const incidentHead = (extra: string) =>
    `POST /api/v1/external/incidents HTTP/1.1\r\nHost: localhost\r\nX-CRA-API-Key: ${t.key}\r\nContent-Type: application/json\r\n${extra}\r\n`;
  const sbomHead = (length: number) =>
    `POST /api/v1/external/products/P-1/sbom HTTP/1.1\r\nHost: localhost\r\nX-CRA-API-Key: ${t.key}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;

  function assertCutOff(response: Awaited<ReturnType<typeof rawRequest>>, deadline: number, label: string) {
    assertErrorBody(response, 408, 'request_timeout', label);
    assert.ok(response.closed, `${label}: connection closed`);
    assert.ok(response.elapsedMs >= deadline - 50 && response.elapsedMs < deadline + 4000, `${label}: after ${response.elapsedMs} ms`);
  }

  it('headers that never end: 408 at the headers deadline', async () => {
    assertCutOff(
      await rawRequest(t.server.port, 'GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: a', { timeoutMs: 5000 }),
      HEADERS_MS,
      'slow headers',
    );
  });

  it('a body shorter than its Content-Length: 408 at the request deadline', async () => {
    assertCutOff(
      await rawRequest(t.server.port, `${incidentHead('Content-Length: 100\r\n')}{"descr`, { timeoutMs: 5000 }),
      REQUEST_MS,
      'short body',
    );
  });

  it('a chunked body that never ends: 408 at the request deadline', async () => {
    assertCutOff(
      await rawRequest(t.server.port, `${incidentHead('Transfer-Encoding: chunked\r\n')}5\r\n{"des\r\n`, { timeoutMs: 5000 }),
      REQUEST_MS,
      'endless chunks',
    );
  });

  it('SBOM ingest has its longer deadline: a slow upload within it succeeds, a stalled one is cut at it', async () => {
    const document = JSON.stringify({ bomFormat: 'CycloneDX', specVersion: '1.6', version: 1, components: [] });
    // Sent in 6 pieces over ~1.5 s: longer than an ordinary request may take, well within SBOM_MS.
    const pieces = Array.from({ length: 6 }, (_, i) => document.slice((i * document.length) / 6, ((i + 1) * document.length) / 6));
    const slow = await rawRequest(t.server.port, sbomHead(Buffer.byteLength(document)), {
      timeoutMs: 8000,
      // biome-ignore lint/suspicious/noThenProperty: rawRequest's option for what to do once connected
      then: (socket) => {
        for (const [i, piece] of pieces.entries()) setTimeout(() => socket.write(piece), 250 * (i + 1));
      },
    });
    assert.equal(slow.status, 201, slow.body);
    assert.ok(slow.elapsedMs > REQUEST_MS);

    assertCutOff(await rawRequest(t.server.port, `${sbomHead(10_000)}{"bomFormat":`, { timeoutMs: 8000 }), SBOM_MS, 'stalled SBOM');
  });

  it('logged no internal error for any of it', () => {
    assertNoErrorLogged(t.server);
  });
});
