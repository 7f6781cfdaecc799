import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildHarness } from '../helpers/app.js';
import { firmwareProduct, matchAfterNvdImport, nvdFixture, seedNvd } from './firmware-helpers.js';
import { cliOf, importRecords, RECORDS } from './helpers.js';

// Firmware components matched by CPE against real NVD records, through the findings engine, and
// listed as an administrator lists them (`finding list --json`): evidence, sources, and
// conditional findings counted apart.

type Listed = {
  vulnerability: string;
  component: { name: string; version: string | null };
  sources: string[];
  match: { cpe: string; cpe_source: string; confidence: string; conditional: boolean; condition: string | null; unbounded: boolean } | null;
};

describe('findings from CPEs', () => {
  it('finds CVE-2023-0286 in OpenSSL 1.0.2zf by its SBOM CPE, with its evidence, and not in 1.0.2zg', async (t) => {
    const h = await buildHarness(t);
    const cli = cliOf(h);
    const old = await firmwareProduct(h, [
      { name: 'openssl', version: '1.0.2zf', cpes: ['cpe:2.3:a:openssl:openssl:1.0.2zf:*:*:*:*:*:*:*'] },
    ]);
    const fixed = await firmwareProduct(
      h,
      [{ name: 'openssl', version: '1.0.2zg', cpes: ['cpe:2.3:a:openssl:openssl:1.0.2zg:*:*:*:*:*:*:*'] }],
      {
        sku: 'RT-2',
      },
    );
    await seedNvd(h, nvdFixture('CVE-2023-0286'));
    const run = await matchAfterNvdImport(h, [old.productId, fixed.productId]);
    assert.deepEqual(run, { new: 1, resolved: 0 });

    const listed = await cli('finding', 'list', '--org', 'acme', '--json');
    assert.equal(listed.code, 0, listed.stderr);
    const findings: Listed[] = listed.json().findings;
    assert.equal(findings.length, 1);
    const [f] = findings;
    assert.equal(f!.vulnerability, 'CVE-2023-0286');
    assert.deepEqual(f!.component, { name: 'openssl', version: '1.0.2zf', purl: null });
    assert.deepEqual(f!.sources, ['nvd']);
    assert.equal(f!.match!.cpe, 'cpe:2.3:a:openssl:openssl:1.0.2zf:*:*:*:*:*:*:*');
    assert.equal(f!.match!.cpe_source, 'sbom');
    assert.equal(f!.match!.confidence, 'exact');
    assert.equal(f!.match!.conditional, false);
    assert.deepEqual((f!.match as unknown as { range: object }).range, { start_including: '1.0.2', end_excluding: '1.0.2zg' });
  });

  it('fills a vendorless Yocto CPE from the vendor table, confidence inferred', async (t) => {
    const h = await buildHarness(t);
    const { productId } = await firmwareProduct(h, [
      { name: 'openssh', version: '9.3p1-r0', cpes: ['cpe:2.3:*:*:openssh:9.3p1:*:*:*:*:*:*:*'] },
      { name: 'acme-daemon', version: '1.0', cpes: ['cpe:2.3:*:*:acme-daemon:1.0:*:*:*:*:*:*:*'] },
    ]);
    await seedNvd(h, nvdFixture('CVE-2023-38408'));
    await matchAfterNvdImport(h, [productId]);
    const findings: Listed[] = (await cliOf(h)('finding', 'list', '--org', 'acme', '--json')).json().findings;
    assert.deepEqual(
      findings.map((f) => [f.vulnerability, f.component.name, f.match?.cpe_source, f.match?.confidence]),
      [['CVE-2023-38408', 'openssh', 'vendor_table', 'inferred']],
    );
  });

  it('leaves the TP-Link firmware conditional without the device, and asserts it with it', async (t) => {
    const h = await buildHarness(t);
    const cli = cliOf(h);
    const firmware = {
      name: 'archer_ax21_firmware',
      version: '1.1.1',
      cpes: ['cpe:2.3:o:tp-link:archer_ax21_firmware:1.1.1:*:*:*:*:*:*:*'],
    };
    const unknown = await firmwareProduct(h, [firmware]);
    const ax21 = await firmwareProduct(h, [firmware], { sku: 'AX21', subject: ['cpe:2.3:h:tp-link:archer_ax21:-:*:*:*:*:*:*:*'] });
    const c7 = await firmwareProduct(h, [firmware], { sku: 'C7', subject: ['cpe:2.3:h:tp-link:archer_c7:5.0:*:*:*:*:*:*:*'] });
    await seedNvd(h, nvdFixture('CVE-2023-1389'));
    await matchAfterNvdImport(h, [unknown.productId, ax21.productId, c7.productId]);

    const asserted: Array<Listed & { product_sku: string }> = (await cli('finding', 'list', '--org', 'acme', '--json')).json().findings;
    assert.deepEqual(
      asserted.map((f) => [f.product_sku, f.vulnerability, f.match?.conditional]),
      [['AX21', 'CVE-2023-1389', false]],
      'the conditional one is left out by default; the Archer C7 has none',
    );
    const conditional = await cli('finding', 'list', '--org', 'acme', '--conditional', '--json');
    const rows: Array<Listed & { product_sku: string }> = conditional.json().findings;
    assert.deepEqual(
      rows.map((f) => [f.product_sku, f.match?.conditional, f.match?.condition]),
      [['RT-1', true, 'only with cpe:2.3:h:tp-link:archer_ax21:-']],
    );
    const text = await cli('finding', 'list', '--org', 'acme', '--conditional');
    assert.match(text.stdout, /only with cpe:2\.3:h:tp-link:archer_ax21:-/);
  });

  it('makes one finding of a CVE found by purl and by CPE, both sources named', async (t) => {
    const h = await buildHarness(t);
    await importRecords(h, RECORDS.salt);
    const { productId } = await firmwareProduct(h, [
      { name: 'salt', version: '3000.1', purl: 'pkg:pypi/salt@3000.1', cpes: ['cpe:2.3:a:saltstack:salt:3000.1:*:*:*:*:*:*:*'] },
    ]);
    const before: Listed[] = (await cliOf(h)('finding', 'list', '--org', 'acme', '--json')).json().findings;
    assert.deepEqual(
      before.map((f) => [f.vulnerability, f.sources, f.match]),
      [['CVE-2020-11651', ['osv'], null]],
    );
    // The NVD's configuration of CVE-2020-11651 (its SaltStack entries).
    await seedNvd(h, {
      id: 'CVE-2020-11651',
      vulnStatus: 'Analyzed',
      configurations: [
        {
          nodes: [
            {
              operator: 'OR',
              negate: false,
              cpeMatch: [
                { vulnerable: true, criteria: 'cpe:2.3:a:saltstack:salt:*:*:*:*:*:*:*:*', versionEndExcluding: '2019.2.4' },
                {
                  vulnerable: true,
                  criteria: 'cpe:2.3:a:saltstack:salt:*:*:*:*:*:*:*:*',
                  versionStartIncluding: '3000',
                  versionEndExcluding: '3000.2',
                },
              ],
            },
          ],
        },
      ],
    });
    const run = await matchAfterNvdImport(h, [productId]);
    assert.deepEqual(run, { new: 0, resolved: 0 });
    const after: Listed[] = (await cliOf(h)('finding', 'list', '--org', 'acme', '--json')).json().findings;
    assert.deepEqual(
      after.map((f) => [f.vulnerability, f.sources, f.match?.cpe]),
      [['CVE-2020-11651', ['nvd', 'osv'], 'cpe:2.3:a:saltstack:salt:3000.1:*:*:*:*:*:*:*']],
    );
  });
});
