import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { createEmptyDatabaseUrl } from '../helpers/db.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { cycloneDx16 } from './sbom-fixtures.js';

// Black-box, against the server as a process: documents built to break the parser or the
// validators, and more large bodies at once than the server will hold.

/** `levels` components, each nested in the previous one's `components`. */
function nested(levels: number, where: 'components' | 'metadata'): string {
  const open = '{"type":"library","name":"x","components":[';
  const close = ']}';
  const chain = `${open.repeat(levels - 1)}{"type":"library","name":"x"}${close.repeat(levels - 1)}`;
  const head = '{"bomFormat":"CycloneDX","specVersion":"1.6","version":1,';
  return where === 'components' ? `${head}"components":[${chain}]}` : `${head}"metadata":{"component":${chain}}}`;
}

const MiB = 1024 * 1024;

describe('SBOM ingest: hostile documents and the bound on bodies in memory (server process)', () => {
  let server: RunningServer;
  let env: Record<string, string>;
  let key: string;
  let drop: () => Promise<void>;
  let dir: string;

  before(async () => {
    const db = await createEmptyDatabaseUrl();
    drop = db.drop;
    env = { DATABASE_URL: db.url };
    assert.equal((await runCli(['org', 'create', 'acme'], env)).code, 0);
    key = (await runCli(['key', 'create', '--org', 'acme', '--name', 'ci', '--scopes', 'products:write', '--json'], env)).json().secret;
    assert.equal((await runCli(['product', 'add', '--org', 'acme', '--sku', 'RTR-1', '--name', 'Router'], env)).code, 0);
    // Bodies up to 8 MiB, at most 10 MiB of them held at once.
    server = await startServer({
      ...env,
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_MINUTE: '1000',
      SBOM_MAX_BYTES: String(8 * MiB),
      SBOM_INFLIGHT_BYTES: String(10 * MiB),
    });
    dir = mkdtempSync(join(tmpdir(), 'cra-hostile-'));
  });
  after(async () => {
    await server?.stop();
    await drop?.();
    rmSync(dir, { recursive: true, force: true });
  });

  const post = (body: string) =>
    fetch(`${server.url}/api/v1/external/products/RTR-1/sbom`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-cra-api-key': key },
      body,
    });

  for (const where of ['components', 'metadata'] as const) {
    for (const levels of [800, 100_000]) {
      it(`${levels.toLocaleString('en')} levels of nested components in ${where} → 422 invalid_sbom naming where, the process lives`, async () => {
        const res = await post(nested(levels, where));
        assert.equal(res.status, 422);
        const body = (await res.json()) as { code: string; errore: string; details: Array<{ path: string; message: string }> };
        assert.equal(body.code, 'invalid_sbom');
        assert.match(body.details[0]!.message, /nests deeper than 100 levels/);
        assert.ok(
          body.details[0]!.path.startsWith(where === 'components' ? '/components/0/components/0/' : '/metadata/component/components/0/'),
          body.details[0]!.path,
        );
        assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
      });
    }
  }

  it('nesting that real SBOMs use (30 levels) is accepted', async () => {
    const res = await post(nested(30, 'components'));
    const text = await res.text();
    assert.equal(res.status, 201, text);
    assert.equal((JSON.parse(text) as { components: number }).components, 30);
  });

  it('cra-admin sbom upload of a 100,000-level document: a clear error, exit 1', async () => {
    const file = join(dir, 'deep.json');
    writeFileSync(file, nested(100_000, 'components'));
    const run = await runCli(['sbom', 'upload', '--org', 'acme', '--sku', 'RTR-1', file], env);
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stderr, /nests deeper than 100 levels/);
    assert.doesNotMatch(run.stderr, /RangeError|call stack/);
  });

  it('a NUL character in a component → 422 invalid_sbom naming its pointer (on every backend)', async () => {
    const doc = cycloneDx16(3);
    doc.components[1].name = 'lib\u0000evil';
    const res = await post(JSON.stringify(doc));
    assert.equal(res.status, 422);
    const body = (await res.json()) as { code: string; details: Array<{ path: string }> };
    assert.equal(body.code, 'invalid_sbom');
    assert.equal(body.details[0]!.path, '/components/1/name');
    const release = cycloneDx16(1, { version: '1.0\u0000' });
    const inRelease = await post(JSON.stringify(release));
    assert.equal(inRelease.status, 422);
    assert.equal(((await inRelease.json()) as { details: Array<{ path: string }> }).details[0]!.path, '/metadata/component/version');
  });

  it('a lone surrogate in a component → 422 invalid_sbom naming its pointer (on every backend)', async () => {
    const json = JSON.stringify(cycloneDx16(3)).replace('"name":"lib-2"', '"name":"lib-2\\udc00"');
    const res = await post(json);
    assert.equal(res.status, 422);
    const body = (await res.json()) as { code: string; details: Array<{ path: string; message: string }> };
    assert.equal(body.code, 'invalid_sbom');
    assert.equal(body.details[0]!.path, '/components/2/name');
    assert.match(body.details[0]!.message, /lone UTF-16 surrogate/);
  });

  it('bodies beyond the in-memory bound → 503 with Retry-After, unread; room again once one is done', async () => {
    // A slow client: declares 8 MiB, sends a little, keeps the connection open.
    const { port } = new URL(server.url);
    const slow = httpRequest({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: '/api/v1/external/products/RTR-1/sbom',
      headers: { 'content-type': 'application/json', 'x-cra-api-key': key, 'content-length': String(8 * MiB) },
    });
    slow.on('error', () => {});
    slow.write('{"bomFormat":');
    await new Promise((r) => setTimeout(r, 300));
    const doc = JSON.stringify(cycloneDx16(16_000));
    assert.ok(doc.length > 2 * MiB && doc.length < 8 * MiB, String(doc.length));
    const refused = await post(doc);
    assert.equal(refused.status, 503);
    assert.equal(refused.headers.get('retry-after'), '5');
    const body = (await refused.json()) as { code: string; request_id: string };
    assert.equal(body.code, 'service_unavailable');
    assert.equal(typeof body.request_id, 'string');
    // Small documents still fit beside the slow one.
    assert.equal((await post(JSON.stringify(cycloneDx16(2)))).status, 201);
    slow.destroy();
    await new Promise((r) => setTimeout(r, 300));
    const accepted = await post(doc);
    assert.equal(accepted.status, 201);
  });
});
