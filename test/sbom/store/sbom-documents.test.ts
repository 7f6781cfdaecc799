import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { buildHarness, type Harness, type Tenant, suiteTeardown } from '../../helpers/app.js';
import { runCli } from '../../helpers/cli.js';
import { type ConsoleAgent, signedInAgent } from '../../helpers/console.js';
import { postIncident } from '../../helpers/incidents.js';
import { FIRMWARE, FIXTURES, fixtureBytes, sha256, skuOf } from '../sbom-fixtures.js';

// The document as received (sbom-conformance.md): every revision keeps the bytes the pipeline
// pushed, compressed and stored once per SHA-256, checked on every read, and gives them back
// byte for byte through `cra-admin sbom download`, the console and a case's evidence bundle;
// only through the organisation's own revision.

const url = (sku: string) => `/api/v1/external/products/${sku}/sbom`;

describe('SBOM documents as received', () => {
  let h: Harness;
  let acme: Tenant;
  let other: Tenant;
  let env: Record<string, string>;
  let viewer: ConsoleAgent;
  const teardown = suiteTeardown();

  /** Pushes `bytes` through the API (a copy: in process, the reader takes the body's buffers over). */
  const push = async (tenant: Tenant, sku: string, bytes: Buffer) => {
    const res = await h.request({
      method: 'POST',
      url: url(sku),
      key: tenant.key,
      headers: { 'content-type': 'application/json' },
      payload: Buffer.from(bytes),
    });
    assert.ok(res.statusCode === 201 || res.statusCode === 200, res.body);
    return res.json() as { sbom_id: string; digest: string; release_version: string };
  };
  const download = (args: string[]) => runCli(['sbom', 'download', ...args], env);
  const documentRows = (digest: string) => h.database.db.selectFrom('sbom_documents').selectAll().where('digest', '=', digest).execute();
  const consoleUrl = (org: string, sku: string, release: string, revision: number) =>
    `/console/o/${org}/products/${encodeURIComponent(sku)}/releases/${encodeURIComponent(release)}/revisions/${revision}/document`;

  before(async () => {
    h = await buildHarness(teardown);
    h.clock.current = new Date('2027-03-01T09:00:00.000Z');
    env = { DATABASE_URL: h.config.databaseUrl };
    acme = await h.tenant('acme', ['products:write', 'products:read', 'incidents:write']);
    other = await h.tenant('other', ['products:write', 'products:read']);
    for (const f of FIXTURES) await h.products.addProduct('acme', skuOf(f.file), { name: f.file, firmwareVersion: FIRMWARE });
    for (const sku of ['GW-1', 'GW-2']) await h.products.addProduct('acme', sku, { name: sku });
    await h.products.addProduct('other', 'THEIRS', { name: 'theirs' });
    ({ agent: viewer } = await signedInAgent(h, 'acme', 'viewer@acme.example', 'viewer'));
  });

  it('gives every real fixture back byte for byte: pushed through the API, read with the CLI and the console', async () => {
    for (const f of FIXTURES) {
      const bytes = fixtureBytes(f.file);
      const sku = skuOf(f.file);
      const pushed = await push(acme, sku, bytes);
      assert.equal(pushed.digest, sha256(bytes));

      const cli = await download(['--org', 'acme', '--sku', sku]);
      assert.equal(cli.code, 0, cli.stderr);
      assert.equal(sha256(cli.bytes), sha256(bytes), `${f.file}: CLI`);
      assert.ok(cli.bytes.equals(bytes), `${f.file}: CLI, byte for byte`);

      const page = await viewer.get(consoleUrl('acme', sku, pushed.release_version, 1));
      assert.equal(page.statusCode, 200, `${f.file}: console ${page.body.slice(0, 200)}`);
      assert.match(String(page.headers['content-disposition']), /^attachment; filename="[A-Za-z0-9._-]+-r1\.(cdx|spdx)\.json"$/);
      assert.equal(page.headers['x-content-sha256'], sha256(bytes));
      assert.ok(page.rawPayload.equals(bytes), `${f.file}: console, byte for byte`);

      // Stored compressed: the fixtures are JSON text, a quarter of their size or less once kept.
      const [row] = await documentRows(sha256(bytes));
      assert.equal(row!.size, bytes.byteLength);
      assert.equal(row!.stored_size, row!.content.byteLength);
      assert.ok(
        row!.stored_size < bytes.byteLength / 4 || bytes.byteLength < 8_000,
        `${f.file}: ${row!.stored_size} of ${bytes.byteLength}`,
      );
    }
  });

  it('the product page links each revision to its document; the revision page too', async () => {
    const sku = skuOf(FIXTURES[0]!.file);
    const page = await viewer.get(`/console/o/acme/products/${sku}`);
    assert.equal(page.statusCode, 200);
    assert.ok(page.body.includes(`href="${consoleUrl('acme', sku, '1.3.15', 1)}" download>as received`), page.body);
    const revision = await viewer.get(`/console/o/acme/products/${sku}/releases/1.3.15/revisions/1`);
    assert.ok(revision.body.includes(`href="${consoleUrl('acme', sku, '1.3.15', 1)}" download>Download the document as received`));
  });

  it('keeps bytes pushed by two products and two organisations once, and each reads them through its own revision', async () => {
    const bytes = fixtureBytes('cyclonedx/laravel-7.12.0-bom.1.4.json');
    for (const sku of ['GW-1', 'GW-2']) await push(acme, sku, bytes);
    await push(other, 'THEIRS', bytes);
    assert.equal((await documentRows(sha256(bytes))).length, 1);
    for (const [org, sku] of [
      ['acme', 'GW-1'],
      ['acme', 'GW-2'],
      ['other', 'THEIRS'],
    ] as const) {
      const cli = await download(['--org', org, '--sku', sku, '--release', 'dev-master', '--revision', '1']);
      assert.equal(cli.code, 0, cli.stderr);
      assert.ok(cli.bytes.equals(bytes), `${org} ${sku}`);
    }
  });

  it("never gives another organisation's revision: the CLI names no product, the console answers 404 as for a missing one", async () => {
    const cli = await download(['--org', 'acme', '--sku', 'THEIRS']);
    assert.equal(cli.code, 1);
    assert.match(cli.stderr, /THEIRS/);
    assert.equal(cli.bytes.byteLength, 0);
    const theirs = await viewer.get(consoleUrl('acme', 'THEIRS', 'dev-master', 1));
    const missing = await viewer.get(consoleUrl('acme', 'GW-1', 'dev-master', 99));
    assert.equal(theirs.statusCode, 404);
    assert.equal(missing.statusCode, 404);
    assert.ok(!theirs.body.includes('laravel'));
    const foreignOrg = await viewer.get(consoleUrl('other', 'THEIRS', 'dev-master', 1));
    assert.ok(foreignOrg.statusCode === 404 || foreignOrg.statusCode === 403, String(foreignOrg.statusCode));
    assert.ok(!foreignOrg.rawPayload.includes(Buffer.from('"bomFormat"')));
  });

  it('answers a missing release or revision and a bad revision number with a clear error', async () => {
    const none = await download(['--org', 'acme', '--sku', 'GW-1', '--release', '9.9', '--revision', '1']);
    assert.equal(none.code, 1);
    assert.match(none.stderr, /product "GW-1" has no revision 1 of release 9\.9/);
    const noSbom = await h.products.addProduct('acme', 'EMPTY', { name: 'empty' });
    assert.ok(noSbom);
    assert.match((await download(['--org', 'acme', '--sku', 'EMPTY'])).stderr, /product "EMPTY" has no SBOM/);
    const bad = await download(['--org', 'acme', '--sku', 'GW-1', '--revision', '0']);
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /expected a revision number/);
    assert.equal((await viewer.get(`/console/o/acme/products/GW-1/releases/dev-master/revisions/x1/document`)).statusCode, 404);
  });

  it('detects a corrupted stored document on read and gives no bytes', async () => {
    const bytes = Buffer.from(JSON.stringify({ bomFormat: 'CycloneDX', specVersion: '1.6', version: 1, components: [] }));
    await h.products.addProduct('acme', 'CORRUPT', { name: 'corrupt', firmwareVersion: '1.0' });
    await push(acme, 'CORRUPT', bytes);
    const digest = sha256(bytes);
    const [kept] = await documentRows(digest);
    // Another valid brotli stream of the same length (one byte changed before compressing).
    const { brotliCompressSync } = await import('node:zlib');
    const altered = Buffer.from(bytes);
    altered[altered.length - 2] = 0x20;
    await h.database.transaction((trx) =>
      trx
        .updateTable('sbom_documents')
        .set({ content: brotliCompressSync(altered) })
        .where('digest', '=', digest)
        .execute(),
    );
    const cli = await download(['--org', 'acme', '--sku', 'CORRUPT']);
    assert.equal(cli.code, 1);
    assert.equal(cli.bytes.byteLength, 0);
    assert.match(cli.stderr, /the stored document of revision 1 of release 1\.0 of "CORRUPT" is corrupt \(its SHA-256 is [0-9a-f]{64}\)/);
    const page = await viewer.get(consoleUrl('acme', 'CORRUPT', '1.0', 1));
    assert.equal(page.statusCode, 500);
    assert.ok(!page.rawPayload.includes(Buffer.from('"bomFormat"')));

    // Bytes that are no brotli stream at all.
    await h.database.transaction((trx) =>
      trx
        .updateTable('sbom_documents')
        .set({ content: Buffer.from('not brotli') })
        .where('digest', '=', digest)
        .execute(),
    );
    assert.match((await download(['--org', 'acme', '--sku', 'CORRUPT'])).stderr, /is corrupt \(it does not decompress\)/);
    await h.database.transaction((trx) =>
      trx.updateTable('sbom_documents').set({ content: kept!.content }).where('digest', '=', digest).execute(),
    );
    assert.ok((await download(['--org', 'acme', '--sku', 'CORRUPT'])).bytes.equals(bytes));
  });

  it('says so for a revision whose document was not kept (ingested before migration 019)', async () => {
    const bytes = Buffer.from(JSON.stringify({ bomFormat: 'CycloneDX', specVersion: '1.5', version: 1, components: [] }));
    await h.products.addProduct('acme', 'OLD', { name: 'old', firmwareVersion: '2.0' });
    await push(acme, 'OLD', bytes);
    // As a revision stored before the migration: no row under its digest.
    await h.database.transaction((trx) => trx.deleteFrom('sbom_documents').where('digest', '=', sha256(bytes)).execute());
    const cli = await download(['--org', 'acme', '--sku', 'OLD']);
    assert.equal(cli.code, 1);
    assert.match(
      cli.stderr,
      /revision 1 of release 2\.0 of "OLD" has no document as received: ingested before documents as received were kept/,
    );
    assert.equal((await viewer.get(consoleUrl('acme', 'OLD', '2.0', 1))).statusCode, 404);
    const page = await viewer.get('/console/o/acme/products/OLD');
    assert.match(page.body, /<td>not kept<\/td>/);
  });

  it('puts the documents of the revisions a case names into its evidence bundle, with their SHA-256 in the manifest', async () => {
    const bytes = fixtureBytes('spdx/example9-spdx3.0-appbomination.spdx3.json');
    await h.products.addProduct('acme', 'CASED', { name: 'cased', firmwareVersion: '1.0' });
    await push(acme, 'CASED', bytes);
    h.clock.advance(60_000);
    const signal = (await postIncident(h, acme.key, { description: 'crash on boot', sku: 'CASED' })).json().incident_number as number;
    await h.cases.openCase('acme', { signalNumber: signal, notifiable: true });
    const bundle = await h.evidence.exportCase('acme', signal);
    assert.equal(bundle.sbom_revisions_at_awareness.length, 1);
    const [entry] = bundle.manifest.sbom_documents;
    assert.deepEqual(entry, {
      sbom_id: bundle.sbom_revisions_at_awareness[0]!.sbom_id,
      release_version: '1.0',
      revision: 1,
      sha256: sha256(bytes),
      bytes: bytes.byteLength,
      included: true,
    });
    const decoded = Buffer.from(bundle.sbom_documents[sha256(bytes)]!, 'base64');
    assert.ok(decoded.equals(bytes));
    // And the conformance reports kept with that revision, both profiles', as the console shows them.
    const reports = bundle.sbom_conformance[entry!.sbom_id] as Array<{ profile: string; conforms: boolean }>;
    assert.deepEqual(
      reports.map((r) => r.profile),
      ['bsi-tr-03183-2-v2.1', 'ntia-minimum'],
    );
    assert.deepEqual(reports[0], (await h.sbomConformance.report('acme', 'CASED', {})).report);
    // The same through the CLI's JSON.
    const cli = await runCli(['case', 'export', '--org', 'acme', '--number', String(signal), '--json'], env);
    assert.equal(cli.code, 0, cli.stderr);
    assert.equal(sha256(Buffer.from(cli.json().sbom_documents[sha256(bytes)], 'base64')), sha256(bytes));
  });
});
