// test-tier: slow (scripts/test.mjs): npm run test:slow runs it, with CI
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

  it('bytes that are not UTF-8 (a name in Latin-1) → 400 invalid_json, never stored as U+FFFD', async () => {
    const text = JSON.stringify(cycloneDx16(2)).replace('"name":"lib-1"', '"name":"caf\u00e9"');
    const res = await fetch(`${server.url}/api/v1/external/products/RTR-1/sbom`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-cra-api-key': key },
      body: Buffer.from(text, 'latin1'),
    });
    assert.equal(res.status, 400);
    const body = (await res.json()) as { code: string; errore: string };
    assert.equal(body.code, 'invalid_json');
    assert.match(body.errore, /not UTF-8/);
    // The same document in UTF-8 is stored as written.
    assert.equal((await post(text)).status, 201);
    const found = await runCli(['component', 'search', '--org', 'acme', '--name', 'caf\u00e9', '--json'], env);
    assert.equal(found.code, 0, found.stderr);
    assert.deepEqual(
      found.json().map((hit: { component: { name: string } }) => hit.component.name),
      ['caf\u00e9'],
    );
  });

  it('SPDX 3 with 700,000 root elements and a relationship to 700,000 licences → 201 (was a 500: a stack overflow)', async () => {
    const many = (id: string) => Array(700_000).fill(id);
    const doc = {
      '@context': 'https://spdx.org/rdf/3.0.1/spdx-context.jsonld',
      '@graph': [
        { type: 'CreationInfo', '@id': '_:ci', created: '2026-01-01T00:00:00Z', specVersion: '3.0.1', createdBy: ['urn:x'] },
        { type: 'SpdxDocument', spdxId: 'd', creationInfo: '_:ci', rootElement: many('r') },
        { type: 'software_Package', spdxId: 'r', creationInfo: '_:ci', name: 'fw', software_packageVersion: '3.3' },
        { type: 'software_Package', spdxId: 'a', creationInfo: '_:ci', name: 'a', software_packageVersion: '1' },
        { type: 'simplelicensing_LicenseExpression', spdxId: 'l', creationInfo: '_:ci', simplelicensing_licenseExpression: 'MIT' },
        { type: 'Relationship', spdxId: 'x', creationInfo: '_:ci', from: 'a', relationshipType: 'hasDeclaredLicense', to: many('l') },
      ],
    };
    const res = await post(JSON.stringify(doc));
    const text = await res.text();
    assert.equal(res.status, 201, text);
    assert.deepEqual(
      [(JSON.parse(text) as { components: number }).components, (JSON.parse(text) as { release_version: string }).release_version],
      [1, '3.3'],
    );
  });

  it('20,000 components that each fail several ways → 422 with the first 50 problems', async () => {
    const doc = cycloneDx16(20_000);
    for (const c of doc.components) Object.assign(c, { type: 'bogus', name: 1, externalReferences: [{ type: 'q', url: 5 }] });
    const res = await post(JSON.stringify(doc));
    assert.equal(res.status, 422);
    const body = (await res.json()) as { code: string; details: Array<{ path: string }> };
    assert.equal(body.code, 'invalid_sbom');
    assert.equal(body.details.length, 50);
    assert.equal(body.details[0]!.path, '/components/0/type');
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
    // The slow one holds all of the organisation's share (half the bound, or one maximum body).
    const small = await post(JSON.stringify(cycloneDx16(2)));
    assert.equal(small.status, 503);
    assert.match(((await small.json()) as { errore: string }).errore, /of this organisation/);
    slow.destroy();
    await new Promise((r) => setTimeout(r, 300));
    const accepted = await post(doc);
    assert.equal(accepted.status, 201);
  });
});

describe('SBOM ingest: one organisation cannot hold the whole bound (server process)', () => {
  let server: RunningServer;
  let drop: () => Promise<void>;
  const keys: Record<string, string> = {};

  before(async () => {
    const db = await createEmptyDatabaseUrl();
    drop = db.drop;
    const env = { DATABASE_URL: db.url };
    for (const org of ['acme', 'other']) {
      assert.equal((await runCli(['org', 'create', org], env)).code, 0);
      const created = await runCli(['key', 'create', '--org', org, '--name', 'ci', '--scopes', 'products:write', '--json'], env);
      keys[org] = created.json().secret;
      assert.equal((await runCli(['product', 'add', '--org', org, '--sku', 'RTR-1', '--name', 'Router'], env)).code, 0);
    }
    // Bodies up to 20 MiB, 40 MiB held at once: an organisation's large bodies hold at most 20.
    server = await startServer({ ...env, LOG_LEVEL: 'warn', SBOM_MAX_BYTES: String(20 * MiB), SBOM_INFLIGHT_BYTES: String(40 * MiB) });
  });
  after(async () => {
    await server?.stop();
    await drop?.();
  });

  /** A chunked upload (its size unknown: it holds the maximum) that sends its first bytes and stops. */
  const trickle = (org: string) => {
    const req = httpRequest({
      host: '127.0.0.1',
      port: new URL(server.url).port,
      method: 'POST',
      path: '/api/v1/external/products/RTR-1/sbom',
      headers: { 'content-type': 'application/json', 'x-cra-api-key': keys[org]!, 'transfer-encoding': 'chunked' },
    });
    req.on('error', () => {});
    const answered = new Promise<number>((resolve) => req.on('response', (res) => resolve(res.statusCode!)));
    req.write('{"bomFormat":');
    return { req, answered };
  };
  /** A whole document sent chunked, as a pipeline streaming it would. */
  const streamed = (org: string, doc: string) =>
    fetch(`${server.url}/api/v1/external/products/RTR-1/sbom`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-cra-api-key': keys[org]! },
      body: new Blob([doc]).stream(),
      duplex: 'half',
    } as RequestInit);

  it("a second trickling upload of one organisation → 503, and so is its small one; another organisation's streamed one → 201", async () => {
    const first = trickle('acme');
    const second = trickle('acme');
    // Whichever is authenticated second finds the share held by the other.
    assert.equal(await Promise.race([first.answered, second.answered]), 503);
    const small = await fetch(`${server.url}/api/v1/external/products/RTR-1/sbom`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-cra-api-key': keys.acme! },
      body: JSON.stringify(cycloneDx16(2)),
    });
    assert.equal(small.status, 503, await small.text());
    const theirs = await streamed('other', JSON.stringify(cycloneDx16(3)));
    assert.equal(theirs.status, 201, await theirs.text());
    // Once the first is gone, the organisation's share is free again.
    first.req.destroy();
    second.req.destroy();
    await new Promise((r) => setTimeout(r, 300));
    const again = await streamed('acme', JSON.stringify(cycloneDx16(4)));
    assert.equal(again.status, 201, await again.text());
  });
});
