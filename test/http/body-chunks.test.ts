import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { rawRequest } from '../helpers/raw-http.js';
import { assertErrorBody, startTenantServer, type TenantServer } from '../helpers/tenant-server.js';

// SBOM bodies go to the reader as the chunks they arrived in (src/http/body-chunks.ts), never
// joined on the event loop: the same limits as Fastify's own parser, and the document read as
// the bytes sent, however they were cut. Raw sockets against the server process.

const MAX = 200_000;

/** A body in HTTP/1.1 chunked transfer coding, cut into `pieces` at the given byte offsets. */
function chunked(body: Buffer, cuts: number[]): Buffer {
  const parts: Buffer[] = [];
  let from = 0;
  for (const to of [...cuts, body.length]) {
    const piece = body.subarray(from, to);
    if (piece.length > 0) parts.push(Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n'));
    from = to;
  }
  parts.push(Buffer.from('0\r\n\r\n'));
  return Buffer.concat(parts);
}

describe('SBOM bodies as chunks (server process, raw sockets)', () => {
  let t: TenantServer;
  before(async () => {
    t = await startTenantServer({ SBOM_MAX_BYTES: String(MAX) });
  });
  after(async () => t?.stop());

  const head = (framing: string) =>
    `POST /api/v1/external/products/P-1/sbom HTTP/1.1\r\nHost: localhost\r\nX-CRA-API-Key: ${t.key}\r\nContent-Type: application/json\r\n${framing}\r\n`;

  it('a declared Content-Length over the limit: 413 before the body is read', async () => {
    const response = await rawRequest(t.server.port, head(`Content-Length: ${MAX + 1}\r\n`), { timeoutMs: 10_000 });
    assertErrorBody(response, 413, 'payload_too_large', 'declared');
  });

  it('a chunked body that grows past the limit: 413 once the received bytes pass it', async () => {
    const body = Buffer.alloc(MAX + 10_000, 0x20);
    const response = await rawRequest(
      t.server.port,
      Buffer.concat([Buffer.from(head('Transfer-Encoding: chunked\r\n')), chunked(body, [60_000, 120_000, 180_000])]),
      {
        timeoutMs: 10_000,
      },
    );
    assertErrorBody(response, 413, 'payload_too_large', 'received');
  });

  it('a document cut inside multi-byte characters, sent chunked: stored as sent (digest and names)', async () => {
    const names = ['zlib-ñandú', 'libcurl-日本語', 'openssl-€'];
    const document = Buffer.from(
      JSON.stringify({
        bomFormat: 'CycloneDX',
        specVersion: '1.6',
        version: 1,
        components: names.map((name) => ({
          type: 'library',
          name,
          version: '1.0.0',
          purl: `pkg:generic/${encodeURIComponent(name)}@1.0.0`,
        })),
      }),
    );
    // A cut after every byte of each multi-byte character: no chunk holds one whole.
    const cuts: number[] = [];
    for (let i = 0; i < document.length; i++) if (document[i]! >= 0x80) cuts.push(i + 1);
    assert.ok(cuts.length > 10);
    const response = await rawRequest(
      t.server.port,
      Buffer.concat([Buffer.from(head('Transfer-Encoding: chunked\r\n')), chunked(document, cuts)]),
      {
        timeoutMs: 10_000,
      },
    );
    assert.equal(response.status, 201, response.body);
    const answer = JSON.parse(response.body);
    assert.equal(answer.digest, createHash('sha256').update(document).digest('hex'));
    assert.equal(answer.components, names.length);
    for (const name of names) {
      const hits = await t.services.portfolio.searchComponents('acme', { name });
      assert.equal(hits.length, 1, `${name} stored under its own name`);
    }
  });
});
