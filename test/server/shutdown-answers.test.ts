import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { RawResponse } from '../helpers/raw-http.js';
import { assertErrorBody, startTenantServer, type TenantServer } from '../helpers/tenant-server.js';

// A request that arrives while the server shuts down gets the contract's error body (503
// service_unavailable with Retry-After), not Fastify's own. Provoked black-box: a request is
// held in flight (its body not yet complete), SIGTERM, then the rest of its body and a second
// request pipelined on the same kept-alive connection.

/** Every complete Content-Length response in `raw`, in order. */
function parseAll(raw: Buffer): RawResponse[] {
  const responses: RawResponse[] = [];
  let offset = 0;
  for (;;) {
    const end = raw.indexOf('\r\n\r\n', offset);
    if (end < 0) return responses;
    const [statusLine, ...lines] = raw.subarray(offset, end).toString('latin1').split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) headers[line.slice(0, line.indexOf(':')).trim().toLowerCase()] = line.slice(line.indexOf(':') + 1).trim();
    const length = Number(headers['content-length'] ?? 0);
    if (raw.length < end + 4 + length) return responses;
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine ?? '')?.[1]);
    responses.push({ status, headers, body: raw.subarray(end + 4, end + 4 + length).toString('utf8'), elapsedMs: 0, closed: false });
    offset = end + 4 + length;
  }
}

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('requests during shutdown (server process, raw socket)', () => {
  let t: TenantServer;
  before(async () => {
    // debug: the test watches for each request's arrival (`incoming request` is a debug line).
    t = await startTenantServer({ LOG_LEVEL: 'debug' });
  });
  after(async () => t?.stop());

  it('finishes the request in flight, answers the one behind it 503 with the contract body and Retry-After, exits 0', async () => {
    const body = JSON.stringify({ description: 'arrives during shutdown' });
    const head = `POST /api/v1/external/incidents HTTP/1.1\r\nHost: localhost\r\nX-CRA-API-Key: ${t.key}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`;
    const second = `GET /api/v1/external/products HTTP/1.1\r\nHost: localhost\r\nX-CRA-API-Key: ${t.key}\r\n\r\n`;
    const socket = connect({ host: '127.0.0.1', port: t.server.port });
    let received = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => (received = Buffer.concat([received, chunk])));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    await new Promise<void>((resolve) => socket.on('connect', resolve));

    const incoming = () => t.server.logs().split('incoming request').length - 1;
    const before = incoming();
    socket.write(head + body.slice(0, 10));
    await until(() => incoming() > before, 'the first request to arrive');
    const exited = t.server.stop('SIGTERM');
    await until(() => t.server.logs().includes('shutting down'), 'shutdown to begin');
    socket.write(body.slice(10) + second);

    assert.equal(await exited, 0);
    await closed;
    const [first, late, ...rest] = parseAll(received);
    assert.equal(first?.status, 201, first?.body);
    assert.ok(late, `a second response: ${received.toString('latin1')}`);
    const error = assertErrorBody(late, 503, 'service_unavailable', 'request during shutdown');
    assert.match(String(error.errore), /shutting down/);
    assert.equal(late.headers['retry-after'], '2');
    assert.equal(late.headers.connection, 'close');
    assert.deepEqual(rest, []);
  });
});
