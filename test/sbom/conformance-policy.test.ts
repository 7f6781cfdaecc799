import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { listRegistry } from '../../src/registry/registry.service.js';
import { createServices } from '../../src/services.js';
import { buildHarness, type Harness, type Tenant, suiteTeardown } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { trCycloneDx } from './conformance/tr-documents.js';
import { cycloneDx16 } from './sbom-fixtures.js';

// The conformance report where a pipeline meets it (sbom-conformance.md, Where it shows): the
// ingest's 201/200 carries the organisation's profile's verdict, and an organisation that
// requires a profile refuses what does not conform, storing nothing.

const URL = '/api/v1/external/products/RTR-1/sbom';

describe('SBOM conformance in the ingest answer, and the policy that refuses', () => {
  let h: Harness;
  let acme: Tenant;
  const teardown = suiteTeardown();
  before(async () => {
    h = await buildHarness(teardown);
    acme = await h.tenant('acme', ['products:write', 'products:read']);
    await h.products.addProduct('acme', 'RTR-1', { name: 'Router', firmwareVersion: '1.0.0' });
  });
  const post = (doc: unknown) =>
    h.request({ method: 'POST', url: URL, key: acme.key, headers: { 'content-type': 'application/json' }, payload: JSON.stringify(doc) });
  const counts = async () => {
    const count = async (table: 'sbom_revisions' | 'components' | 'sbom_conformance' | 'releases') =>
      Number(
        (
          await h.database.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    return {
      revisions: await count('sbom_revisions'),
      components: await count('components'),
      reports: await count('sbom_conformance'),
      releases: await count('releases'),
    };
  };

  it('201 says the document conforms to TR-03183-2 when it does; the 200 of the same bytes says it again', async () => {
    const doc = trCycloneDx(3);
    const first = await post(doc);
    assert.equal(first.statusCode, 201, first.body);
    assert.deepEqual(first.json().conformance, { profile: 'bsi-tr-03183-2-v2.1', conforms: true, missing_required: [] });
    const again = await post(doc);
    assert.equal(again.statusCode, 200);
    assert.deepEqual(again.json().conformance, first.json().conformance);
  });

  it('a document without SHA-512, filename or creator is accepted under `report`, with what it misses', async () => {
    const res = await post(cycloneDx16(4, { version: '1.1.0' }));
    assert.equal(res.statusCode, 201, res.body);
    const { conformance } = res.json();
    assert.equal(conformance.profile, 'bsi-tr-03183-2-v2.1');
    assert.equal(conformance.conforms, false);
    for (const field of ['document.creator', 'component.filename', 'component.hash_sha512'])
      assert.ok(conformance.missing_required.includes(field), field);
    // Both profiles' reports are kept with the revision.
    const kept = await h.database.db
      .selectFrom('sbom_conformance')
      .select(['profile', 'conforms'])
      .where('sbom_id', '=', res.json().sbom_id)
      .execute();
    assert.deepEqual(kept.map((r) => r.profile).sort(), ['bsi-tr-03183-2-v2.1', 'ntia-minimum']);
  });

  it('under require:bsi-tr-03183-2-v2.1 a non-conforming document is refused with 422 naming each field, and nothing is stored', async () => {
    await h.sbomConformance.setPolicy('acme', 'require:bsi-tr-03183-2-v2.1', 'cli');
    const before = await counts();
    const doc = trCycloneDx(7);
    doc.version = 2;
    doc.metadata.component.version = '2.0.0';
    for (const c of doc.components) c.externalReferences[0].hashes = [{ alg: 'SHA-256', content: 'cd'.repeat(32) }];
    doc.components[1].properties[0].value = './dist/lib-1.tgz';
    const res = await post(doc);
    assert.equal(res.statusCode, 422, res.body);
    const body = res.json();
    assert.equal(body.code, 'sbom_not_conformant');
    assert.match(body.errore, /bsi-tr-03183-2-v2\.1/);
    const hash = body.details.find((d: { field?: string }) => d.field === 'component.hash_sha512');
    assert.equal(hash.missing, 7);
    assert.equal(hash.examples.length, 5);
    assert.match(hash.examples[0], /^lib-0 1\.0\.0: /);
    assert.match(hash.message, /component\.hash_sha512: missing on 7 of 8 components/);
    const filename = body.details.find((d: { field?: string }) => d.field === 'component.filename');
    assert.equal(filename.missing, 1);
    assert.match(filename.examples[0], /^lib-1 1\.0\.1: .*path/);
    assert.deepEqual(await counts(), before);
  });

  it('a finding is a detail of its own (vulnerability information in an SBOM)', async () => {
    const doc = trCycloneDx(1);
    doc.metadata.component.version = '2.1.0';
    doc.vulnerabilities = [{ id: 'CVE-2024-0001', affects: [{ ref: 'lib-0' }] }];
    const res = await post(doc);
    assert.equal(res.statusCode, 422, res.body);
    assert.deepEqual(
      res.json().details.filter((d: { finding?: string }) => d.finding),
      [{ path: '', message: 'finding: vulnerabilities_in_sbom', finding: 'vulnerabilities_in_sbom' }],
    );
  });

  it('a conforming document still passes under the policy', async () => {
    const doc = trCycloneDx(2);
    doc.metadata.component.version = '3.0.0';
    const res = await post(doc);
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json().conformance.conforms, true);
  });

  it('require:ntia-minimum speaks of the NTIA profile in the answer', async () => {
    await h.sbomConformance.setPolicy('acme', 'require:ntia-minimum', 'cli');
    const doc = trCycloneDx(2);
    doc.metadata.component.version = '4.0.0';
    const res = await post(doc);
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json().conformance.profile, 'ntia-minimum');
    await h.sbomConformance.setPolicy('acme', 'report', 'cli');
  });

  it('each change of policy is a registry entry; setting the same one again is none', async () => {
    await h.sbomConformance.setPolicy('acme', 'report', 'cli');
    const entries = [];
    for await (const e of listRegistry(h.database, acme.orgId)) if (e.action === 'org.sbom_policy_set') entries.push(JSON.parse(e.details));
    assert.deepEqual(entries, [
      { from: 'report', to: 'require:bsi-tr-03183-2-v2.1' },
      { from: 'require:bsi-tr-03183-2-v2.1', to: 'require:ntia-minimum' },
      { from: 'require:ntia-minimum', to: 'report' },
    ]);
  });

  it('an unknown policy or profile is a validation error naming the choices', async () => {
    await assert.rejects(
      h.sbomConformance.setPolicy('acme', 'require:iso-5962', 'cli'),
      /report, require:bsi-tr-03183-2-v2\.1, require:ntia-minimum/,
    );
    await assert.rejects(h.sbomConformance.setPolicy('acme', 'strict', 'cli'), (e: { code?: string }) => e.code === 'validation_failed');
  });
});

describe('cra-admin org set --sbom-policy and sbom conformance', () => {
  let testDb: TestDatabase;
  let env: Record<string, string>;
  before(async () => {
    testDb = await createTestDatabase();
    env = { DATABASE_URL: testDb.url };
    const { orgs, products } = createServices({ database: testDb.database });
    await orgs.createOrg({ slug: 'cli-org' });
    await orgs.createOrg({ slug: 'other-org' });
    await products.addProduct('cli-org', 'CAM-1', { name: 'Camera', firmwareVersion: '1.0.0' });
  });
  after(async () => {
    await testDb.drop();
  });

  const upload = async (doc: unknown, name: string) => {
    const { writeFile, mkdtemp } = await import('node:fs/promises');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const file = join(await mkdtemp(join(tmpdir(), 'conformance-')), name);
    await writeFile(file, JSON.stringify(doc));
    return runCli(['sbom', 'upload', '--org', 'cli-org', '--sku', 'CAM-1', file], env);
  };

  it('upload prints the verdict; sbom conformance prints the kept report, whole with --json', async () => {
    const up = await upload(cycloneDx16(2, { version: '1.0.0' }), 'a.json');
    assert.equal(up.code, 0, up.stderr);
    assert.match(up.stdout, /does not conform to bsi-tr-03183-2-v2\.1: missing .*component\.hash_sha512/);
    const text = await runCli(['sbom', 'conformance', '--org', 'cli-org', '--sku', 'CAM-1'], env);
    assert.equal(text.code, 0, text.stderr);
    assert.match(
      text.stdout,
      /^CAM-1 release 1\.0\.0 revision 1: does not conform to .*\(bsi-tr-03183-2-v2\.1\)\n {2}CycloneDX 1\.6, 3 components/,
    );
    assert.match(text.stdout, /missing component\.hash_sha512 on 3 of 3 components:/);
    const json = await runCli(['sbom', 'conformance', '--org', 'cli-org', '--sku', 'CAM-1', '--json'], env);
    const report = json.json();
    assert.equal(report.profile, 'bsi-tr-03183-2-v2.1');
    assert.equal(report.components.total, 3);
    const ntia = await runCli(['sbom', 'conformance', '--org', 'cli-org', '--sku', 'CAM-1', '--profile', 'ntia-minimum', '--json'], env);
    assert.equal(ntia.json().profile, 'ntia-minimum');
  });

  it('org set --sbom-policy require:… refuses the next non-conforming upload with what to fix, exit 1', async () => {
    const set = await runCli(['org', 'set', 'cli-org', '--sbom-policy', 'require:bsi-tr-03183-2-v2.1'], env);
    assert.equal(set.code, 0, set.stderr);
    assert.match(set.stdout, /SBOM policy require:bsi-tr-03183-2-v2\.1/);
    const up = await upload(cycloneDx16(2, { version: '1.1.0' }), 'b.json');
    assert.equal(up.code, 1);
    assert.match(up.stderr, /does not conform to bsi-tr-03183-2-v2\.1/);
    assert.match(up.stderr, /\n {2}component\.hash_sha512: missing on 3 of 3 components \(device 1\.1\.0: /);
    const ok = await upload(trCycloneDx(1), 'c.json');
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /conforms to bsi-tr-03183-2-v2\.1/);
  });

  it('bad policies, profiles, revisions and another organisation are clear errors', async () => {
    const policy = await runCli(['org', 'set', 'cli-org', '--sbom-policy', 'require:tr'], env);
    assert.equal(policy.code, 1);
    assert.match(policy.stderr, /one of report, require:bsi-tr-03183-2-v2\.1, require:ntia-minimum/);
    const profile = await runCli(['sbom', 'conformance', '--org', 'cli-org', '--sku', 'CAM-1', '--profile', 'nist'], env);
    assert.equal(profile.code, 1);
    assert.match(profile.stderr, /no conformance profile "nist"/);
    const revision = await runCli(
      ['sbom', 'conformance', '--org', 'cli-org', '--sku', 'CAM-1', '--release', '1.0.0', '--revision', '9'],
      env,
    );
    assert.equal(revision.code, 1);
    assert.match(revision.stderr, /has no revision 9/);
    const other = await runCli(['sbom', 'conformance', '--org', 'other-org', '--sku', 'CAM-1'], env);
    assert.equal(other.code, 1);
    assert.match(other.stderr, /no product with SKU "CAM-1"/);
  });

  it('a revision stored before reports were kept says it has none', async () => {
    await testDb.database.transaction((trx) => trx.deleteFrom('sbom_conformance').execute());
    const res = await runCli(['sbom', 'conformance', '--org', 'cli-org', '--sku', 'CAM-1', '--release', '1.0.0'], env);
    assert.equal(res.code, 1);
    assert.match(res.stderr, /has no bsi-tr-03183-2-v2\.1 report: it was stored before conformance reports were kept/);
  });
});
