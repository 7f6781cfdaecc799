// test-backend: one (scripts/test.mjs): the executable's answers, not the database, are under test
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createServices } from '../../src/services.js';
import { runCliProcess } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { FIRMWARE, FIXTURES, fixtureBytes, fixturePath, sha256, skuOf } from './sbom-fixtures.js';

// `cra-admin sbom upload` as a user runs it: the built executable, a process per upload, on the
// published fixtures. Ingest itself is tested on both backends through the API
// (ingest-fixtures.test.ts); this file runs on the first backend only.

describe('cra-admin sbom upload of the published fixtures (built CLI, subprocess)', () => {
  let testDb: TestDatabase;
  let env: Record<string, string>;
  before(async () => {
    testDb = await createTestDatabase();
    env = { DATABASE_URL: testDb.url };
    const { orgs, products } = createServices({ database: testDb.database });
    await orgs.createOrg({ slug: 'cli-org' });
    for (const f of FIXTURES) await products.addProduct('cli-org', skuOf(f.file), { name: f.file, firmwareVersion: FIRMWARE });
  });
  after(async () => {
    await testDb.drop();
  });

  for (const f of FIXTURES) {
    it(`${f.file} via cra-admin`, async () => {
      const run = await runCliProcess(['sbom', 'upload', '--org', 'cli-org', '--sku', skuOf(f.file), fixturePath(f.file), '--json'], env);
      assert.equal(run.code, 0, run.stderr);
      const body = run.json();
      assert.equal(body.format, f.format);
      assert.equal(body.spec_version, f.specVersion);
      assert.equal(body.components, f.components);
      assert.equal(body.release_version, f.release ?? FIRMWARE);
      assert.equal(body.digest, sha256(fixtureBytes(f.file)));
    });
  }

  it('uploading the same file again answers with the stored revision', async () => {
    const f = FIXTURES[0]!;
    const first = await runCliProcess(['sbom', 'upload', '--org', 'cli-org', '--sku', skuOf(f.file), fixturePath(f.file), '--json'], env);
    const again = await runCliProcess(['sbom', 'upload', '--org', 'cli-org', '--sku', skuOf(f.file), fixturePath(f.file)], env);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /already has this document/);
    assert.match(again.stdout, new RegExp(first.json().sbom_id));
  });

  it('reports errors on stderr with exit 1, with the failing paths', async () => {
    const unknown = await runCliProcess(['sbom', 'upload', '--org', 'cli-org', '--sku', 'NOPE', fixturePath(FIXTURES[0]!.file)], env);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no product with SKU "NOPE"/);
    const notJson = await runCliProcess(
      ['sbom', 'upload', '--org', 'cli-org', '--sku', skuOf(FIXTURES[0]!.file), fixturePath('README.md')],
      env,
    );
    assert.equal(notJson.code, 1);
    assert.match(notJson.stderr, /not valid JSON/);
    const usage = await runCliProcess(['sbom', 'upload', '--org', 'cli-org', fixturePath(FIXTURES[0]!.file)], env);
    assert.equal(usage.code, 2);
  });
});
