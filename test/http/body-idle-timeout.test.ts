import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { rawRequest } from '../helpers/raw-http.js';
import { assertNoErrorLogged } from '../helpers/server.js';
import { assertErrorBody, startTenantServer, type TenantServer } from '../helpers/tenant-server.js';

// A body that stops arriving is cut off after BODY_IDLE_TIMEOUT_MS without a byte, long before
// its operation's deadline (10 minutes for SBOM ingest), while a slow body that keeps coming is
// received whole. Raw sockets against the server process.

const IDLE_MS = 700;
const SBOM_MS = 30_000;

describe('body idle timeout (server process, raw sockets)', () => {
  let t: TenantServer;
  before(async () => {
    t = await startTenantServer({ BODY_IDLE_TIMEOUT_MS: String(IDLE_MS), SBOM_REQUEST_TIMEOUT_MS: String(SBOM_MS) });
  });
  after(async () => t?.stop());

  const sbomHead = (length: number) =>
    `POST /api/v1/external/products/P-1/sbom HTTP/1.1\r\nHost: localhost\r\nX-CRA-API-Key: ${t.key}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;

  it('an SBOM upload that stops sending: 408 after the idle time, not the 10-minute deadline, connection closed', async () => {
    const response = await rawRequest(t.server.port, `${sbomHead(10_000)}{"bomFormat":"CycloneDX",`, {
      timeoutMs: 10_000,
      // biome-ignore lint/suspicious/noThenProperty: rawRequest's option for what to do once connected
      then: (socket) => setTimeout(() => socket.write('"specVersion":'), 400),
    });
    const body = assertErrorBody(response, 408, 'request_timeout', 'stalled SBOM');
    assert.match(String(body.errore), new RegExp(`no part of the request body arrived for ${IDLE_MS} ms`));
    assert.ok(response.closed, 'connection closed');
    // The second piece reset the clock: cut one idle time after it, far from SBOM_MS.
    assert.ok(response.elapsedMs >= 400 + IDLE_MS - 50 && response.elapsedMs < 400 + IDLE_MS + 3000, `after ${response.elapsedMs} ms`);
  });

  it('an SBOM trickling in small pieces, each within the idle time, is received whole (201)', async () => {
    const document = JSON.stringify({ bomFormat: 'CycloneDX', specVersion: '1.6', version: 1, components: [] });
    const count = 8;
    const pieces = Array.from({ length: count }, (_, i) =>
      document.slice((i * document.length) / count, ((i + 1) * document.length) / count),
    );
    const response = await rawRequest(t.server.port, sbomHead(Buffer.byteLength(document)), {
      timeoutMs: 15_000,
      // biome-ignore lint/suspicious/noThenProperty: rawRequest's option for what to do once connected
      then: (socket) => {
        for (const [i, piece] of pieces.entries()) setTimeout(() => socket.write(piece), (IDLE_MS / 2) * (i + 1));
      },
    });
    assert.equal(response.status, 201, response.body);
    assert.ok(response.elapsedMs > 3 * IDLE_MS, `took ${response.elapsedMs} ms: longer than the idle time, in total`);
  });

  it('an incident body that stops: 408 after the idle time, before REQUEST_TIMEOUT_MS (30 s)', async () => {
    const response = await rawRequest(
      t.server.port,
      `POST /api/v1/external/incidents HTTP/1.1\r\nHost: localhost\r\nX-CRA-API-Key: ${t.key}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"descr`,
      { timeoutMs: 10_000 },
    );
    assertErrorBody(response, 408, 'request_timeout', 'stalled incident');
    assert.ok(response.closed);
    assert.ok(response.elapsedMs < IDLE_MS + 3000, `after ${response.elapsedMs} ms`);
  });

  it('logged no internal error for any of it', () => {
    assertNoErrorLogged(t.server);
  });
});
