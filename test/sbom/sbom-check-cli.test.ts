import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli, runCliProcess } from '../helpers/cli.js';
import { trCycloneDx } from './conformance/tr-documents.js';
import { fixturePath } from './sbom-fixtures.js';

// `cra-admin sbom check FILE` as a pipeline runs it: no server, no database. The environment
// names a database nobody listens on: a command that opened it would fail.

const NO_DATABASE = { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' };

describe('cra-admin sbom check', () => {
  let dir: string;
  const file = (name: string, content: unknown) => {
    const path = join(dir, name);
    writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
    return path;
  };
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'cra-sbom-check-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('exits 0 for a conforming document and says so', async () => {
    const run = await runCli(['sbom', 'check', file('good.json', trCycloneDx(3))], NO_DATABASE);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /good\.json: conforms to BSI TR-03183-2 v2\.1\.0 \(bsi-tr-03183-2-v2\.1\)/);
    assert.match(run.stdout, /CycloneDX 1\.6, 4 components, 4 with every required field/);
    assert.equal(run.stderr, '');
  });

  it('exits 1 and names each missing field with its count and examples "name version: why"', async () => {
    const doc = trCycloneDx(3);
    doc.components[0].externalReferences[0].hashes = [{ alg: 'SHA-256', content: 'cd'.repeat(32) }];
    doc.components[2].properties[0].value = 'out/lib-2.tgz';
    delete doc.metadata.manufacturer;
    const run = await runCli(['sbom', 'check', file('bad.json', doc)], NO_DATABASE);
    assert.equal(run.code, 1, run.stderr);
    const lines = run.stdout.split('\n');
    assert.match(lines[0]!, /bad\.json: does not conform to BSI TR-03183-2/);
    assert.ok(lines.includes('  missing document.creator'), run.stdout);
    assert.ok(lines.includes('  missing component.hash_sha512 on 1 of 4 components:'), run.stdout);
    assert.ok(lines.includes('    lib-0 1.0.0: only SHA-256'), run.stdout);
    assert.ok(lines.includes('    lib-2 1.0.2: a path, not a filename ("out/lib-2.tgz")'), run.stdout);
  });

  it('--json prints the report; --profile chooses the profile', async () => {
    const path = fixturePath('cyclonedx/juice-shop-bom.1.4.json');
    const run = await runCli(['sbom', 'check', path, '--json'], NO_DATABASE);
    assert.equal(run.code, 1);
    const report = run.json();
    assert.equal(report.profile, 'bsi-tr-03183-2-v2.1');
    assert.equal(report.missing_required[0], 'document.format');
    assert.equal(report.findings[0], 'format_below_floor');
    assert.equal(report.components.total, 1116);
    const ntia = await runCli(['sbom', 'check', '--profile', 'ntia-minimum', path, '--json'], NO_DATABASE);
    assert.equal(ntia.json().profile, 'ntia-minimum');
    assert.deepEqual(ntia.json().missing_required, ['document.timestamp', 'document.author', 'component.supplier']);
  });

  it('exits 2 for a file it cannot read, a document that is no supported SBOM, an invalid one, or an unknown profile', async () => {
    const missing = await runCli(['sbom', 'check', join(dir, 'nope.json')], NO_DATABASE);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /cannot read .*nope\.json: ENOENT/);
    const notSbom = await runCli(['sbom', 'check', file('package.json', { name: 'x' }), '--json'], NO_DATABASE);
    assert.equal(notSbom.code, 2);
    assert.equal(notSbom.json().error.code, 'unsupported_sbom_format');
    const notJson = await runCli(['sbom', 'check', file('broken.json', '{"bomFormat": ')], NO_DATABASE);
    assert.equal(notJson.code, 2);
    assert.match(notJson.stderr, /not valid JSON/);
    const invalid = trCycloneDx(1);
    invalid.components[0].licenses.push({ expression: 'MIT' });
    const refused = await runCli(['sbom', 'check', file('invalid.json', invalid)], NO_DATABASE);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /not valid CycloneDX 1\.6\n {2}\/components\/0\/licenses/);
    const profile = await runCli(['sbom', 'check', '--profile', 'iso-9001', file('good2.json', trCycloneDx(1))], NO_DATABASE);
    assert.equal(profile.code, 2);
    assert.match(profile.stderr, /expected one of bsi-tr-03183-2-v2\.1, ntia-minimum/);
  });

  it('runs as the built executable with the same exit codes and JSON', async () => {
    const good = await runCliProcess(['sbom', 'check', file('p-good.json', trCycloneDx(2))], NO_DATABASE);
    assert.equal(good.code, 0, good.stderr);
    assert.match(good.stdout, /conforms to/);
    const spdx = await runCliProcess(
      ['sbom', 'check', fixturePath('spdx/example8-spdx2.3-examplemaven-0.0.1.spdx.json'), '--json'],
      NO_DATABASE,
    );
    assert.equal(spdx.code, 1, spdx.stderr);
    assert.deepEqual(spdx.json().components, { total: 6, conforming: 0, fields: [] });
    const bad = await runCliProcess(['sbom', 'check', join(dir, 'none.json')], NO_DATABASE);
    assert.equal(bad.code, 2);
  });
});
