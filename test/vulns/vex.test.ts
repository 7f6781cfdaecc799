import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { validateCycloneDx } from '../../src/sbom/parse/cyclonedx-validator.js';
import type { AnalyseInput } from '../../src/vulns/services/analysis.service.js';
import { buildHarness, type Harness } from '../helpers/app.js';
import { csafErrors } from '../helpers/csaf.js';
import { ATLAS, cliOf, fixture, GIN, importFeeds, importRecords, productWith, RECORDS, SALT } from './helpers.js';

// VEX out and in: a release's findings with their analyses as CycloneDX 1.6 (valid against the
// CycloneDX schema), CSAF 2.0 csaf_vex (the schema and the mandatory tests of the BSI's
// csaf-validator-lib) and OpenVEX 0.2; each read back, and other tools' statements applied.
// Each test builds its own analysed product (analysedGateway) on a database of its own.

/**
 * acme's GW-1, release 3.1.0, holding salt, gin and apache-atlas (PYSEC-2017-105, CVE-2016-8752,
 * carries a CVSS 3.0 vector), their records and CISA's catalogue imported; gin analysed
 * not_affected, salt's CVE-2020-11651 exploitable with a response.
 */
async function analysedGateway(h: Harness): Promise<void> {
  await importRecords(h, RECORDS.gin, RECORDS.salt, RECORDS.salt2, RECORDS.atlas);
  await importFeeds(h, fixture('cisa-kev.json'));
  await h.orgs.createOrg({ slug: 'acme' });
  await h.orgs.setDetails('acme', { legalName: 'Acme Devices GmbH', contactEmail: 'psirt@acme.example' });
  await productWith(h, [SALT, GIN, ATLAS], { release: '3.1.0' });
  const analyse = (input: Omit<AnalyseInput, 'org' | 'sku' | 'actor'>) =>
    h.vulns.analyse({ org: 'acme', sku: 'GW-1', actor: 'cli', ...input });
  await analyse({ vuln: RECORDS.gin, state: 'not_affected', justification: 'code_not_reachable', detail: 'the logger is never used' });
  await analyse({ vuln: 'CVE-2020-11651', state: 'exploitable', responses: ['update'], detail: 'update salt to 3000.2' });
}

/** A directory of the test's own, removed when it ends. */
function scratch(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'cra-vex-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The document `vex export` prints for GW-1 in `format`. */
async function exported(h: Harness, format: string) {
  const result = await cliOf(h)('vex', 'export', '--org', 'acme', '--sku', 'GW-1', '--format', format, '--json');
  assert.equal(result.code, 0, result.stderr);
  return result.json();
}

describe('VEX out and in', () => {
  it('CycloneDX 1.6 VEX, valid against the schema, with each analysis', async (t) => {
    const h = await buildHarness(t);
    await analysedGateway(h);
    const doc = await exported(h, 'cyclonedx');
    assert.deepEqual(validateCycloneDx('1.6', doc), []);
    assert.equal(doc.metadata.component.purl, 'pkg:generic/acme/GW-1@3.1.0');
    const gin = doc.vulnerabilities.find((v: { id: string }) => v.id === 'CVE-2020-36567');
    assert.deepEqual(gin.analysis, { state: 'not_affected', justification: 'code_not_reachable', detail: 'the logger is never used' });
    const salt = doc.vulnerabilities.find((v: { id: string }) => v.id === 'CVE-2020-11651');
    assert.deepEqual(salt.analysis, { state: 'exploitable', response: ['update'], detail: 'update salt to 3000.2' });
    const atlas = doc.vulnerabilities.find((v: { id: string }) => v.id === 'CVE-2016-8752');
    assert.deepEqual(atlas.ratings, [{ score: 7.5, severity: 'high', method: 'CVSSv3', vector: 'AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N' }]);
    assert.deepEqual(atlas.analysis, { state: 'in_triage' });
  });

  it('CSAF 2.0 csaf_vex, valid against the schema and the mandatory tests', async (t) => {
    const h = await buildHarness(t);
    await analysedGateway(h);
    const doc = await exported(h, 'csaf');
    assert.deepEqual(await csafErrors(doc), []);
    assert.equal(doc.document.category, 'csaf_vex');
    const gin = doc.vulnerabilities.find((v: { cve?: string }) => v.cve === 'CVE-2020-36567');
    assert.deepEqual(gin.product_status, { known_not_affected: ['CSAFPID-0001'] });
    assert.deepEqual(gin.flags, [{ label: 'vulnerable_code_not_in_execute_path', product_ids: ['CSAFPID-0001'] }]);
    const salt = doc.vulnerabilities.find((v: { cve?: string }) => v.cve === 'CVE-2020-11651');
    assert.deepEqual(salt.product_status, { known_affected: ['CSAFPID-0001'] });
    assert.equal(salt.remediations[0].category, 'vendor_fix');
  });

  it('OpenVEX 0.2 with the product as its purl and the components as subcomponents', async (t) => {
    const h = await buildHarness(t);
    await analysedGateway(h);
    const doc = await exported(h, 'openvex');
    assert.equal(doc['@context'], 'https://openvex.dev/ns/v0.2.0');
    const gin = doc.statements.find((s: { vulnerability: { name: string } }) => s.vulnerability.name === 'CVE-2020-36567');
    assert.equal(gin.status, 'not_affected');
    assert.equal(gin.justification, 'vulnerable_code_not_in_execute_path');
    assert.equal(gin.impact_statement, 'the logger is never used');
    assert.deepEqual(gin.products, [
      { '@id': 'pkg:generic/acme/GW-1@3.1.0', subcomponents: [{ '@id': 'pkg:golang/github.com/gin-gonic/gin@v1.5.0' }] },
    ]);
    for (const s of doc.statements) assert.ok(s.status !== 'affected' || s.action_statement, 'affected statements say what to do');
  });

  it('reads each exported format back: the same analyses, nothing unmatched', async (t) => {
    const h = await buildHarness(t);
    await analysedGateway(h);
    const cli = cliOf(h);
    const dir = scratch(t);
    for (const format of ['cyclonedx', 'csaf', 'openvex']) {
      const file = join(dir, `${format}.json`);
      assert.equal((await cli('vex', 'export', '--org', 'acme', '--sku', 'GW-1', '--format', format, '--output', file)).code, 0);
      const result = await cli('vex', 'import', '--org', 'acme', file, '--json');
      assert.equal(result.code, 0, result.stderr);
      assert.deepEqual(result.json().unmatched, [], format);
      const gin = (await cli('finding', 'list', '--org', 'acme', '--vuln', 'GO-2020-0001', '--json')).json().findings[0];
      assert.equal(gin.state, 'not_affected', format);
    }
  });

  it("applies another tool's OpenVEX by alias and SKU, and lists what matched nothing", async (t) => {
    const h = await buildHarness(t);
    await analysedGateway(h);
    const cli = cliOf(h);
    const dir = scratch(t);
    const file = join(dir, 'theirs.openvex.json');
    writeFileSync(
      file,
      JSON.stringify({
        '@context': 'https://openvex.dev/ns/v0.2.0',
        '@id': 'https://example.com/vex/1',
        author: 'someone',
        timestamp: '2026-11-01T00:00:00Z',
        version: 1,
        statements: [
          { vulnerability: { name: 'GHSA-6vm3-jj99-7229' }, products: [{ '@id': 'GW-1' }], status: 'fixed' },
          {
            vulnerability: { name: 'CVE-1999-0001' },
            products: [{ '@id': 'GW-1' }],
            status: 'not_affected',
            justification: 'component_not_present',
          },
          { vulnerability: { name: 'GO-2020-0001' }, products: [{ '@id': 'pkg:generic/acme/NOPE@1' }], status: 'fixed' },
        ],
      }),
    );
    const result = (await cli('vex', 'import', '--org', 'acme', file, '--json')).json();
    assert.equal(result.applied, 1);
    assert.deepEqual(
      result.unmatched.map((u: { vulnerability: string; reason: string }) => [u.vulnerability, u.reason]),
      [
        ['CVE-1999-0001', 'no vulnerability with this id or alias'],
        ['GO-2020-0001', 'no product of the organisation with this identifier or SKU'],
      ],
    );
    const gin = (await cli('finding', 'list', '--org', 'acme', '--vuln', 'CVE-2020-36567', '--json')).json().findings[0];
    assert.equal(gin.state, 'resolved');
    const notVex = join(dir, 'not-vex.json');
    writeFileSync(notVex, readFileSync(fixture('eu-kev.json')));
    const refused = await cli('vex', 'import', '--org', 'acme', notVex);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /not a CycloneDX, CSAF or OpenVEX document/);
  });
});
