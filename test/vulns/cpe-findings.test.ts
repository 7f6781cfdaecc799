import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { buildHarness } from '../helpers/app.js';
import { signedInAgent } from '../helpers/console.js';
import { firmwareProduct, importNvd, nvdFile } from './firmware-helpers.js';
import { cliOf, fixture, importFeeds, importRecords, RECORDS } from './helpers.js';

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
    await firmwareProduct(h, [{ name: 'openssl', version: '1.0.2zf', cpe: 'cpe:2.3:a:openssl:openssl:1.0.2zf:*:*:*:*:*:*:*' }]);
    await firmwareProduct(h, [{ name: 'openssl', version: '1.0.2zg', cpe: 'cpe:2.3:a:openssl:openssl:1.0.2zg:*:*:*:*:*:*:*' }], {
      sku: 'RT-2',
    });
    const imported = await cli('vuln', 'import', nvdFile('CVE-2023-0286'), '--json');
    assert.equal(imported.code, 0, imported.stderr);
    assert.deepEqual(imported.json().findings, { new: 1, resolved: 0 });

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
    // the record first: the SBOM's components are read and matched as it is stored
    await importNvd(h, 'CVE-2023-38408');
    await firmwareProduct(h, [
      { name: 'openssh', version: '9.3p1-r0', cpe: 'cpe:2.3:*:*:openssh:9.3p1:*:*:*:*:*:*:*' },
      { name: 'acme-daemon', version: '1.0', cpe: 'cpe:2.3:*:*:acme-daemon:1.0:*:*:*:*:*:*:*' },
    ]);
    const findings: Listed[] = (await cliOf(h)('finding', 'list', '--org', 'acme', '--json')).json().findings;
    assert.deepEqual(
      findings.map((f) => [f.vulnerability, f.component.name, f.match?.cpe_source, f.match?.confidence]),
      [['CVE-2023-38408', 'openssh', 'vendor_table', 'inferred']],
    );
  });

  it('leaves the TP-Link firmware conditional without the device (no signal), and asserts it with it (a signal)', async (t) => {
    const h = await buildHarness(t);
    const cli = cliOf(h);
    const firmware = {
      name: 'archer_ax21_firmware',
      version: '1.1.1',
      cpe: 'cpe:2.3:o:tp-link:archer_ax21_firmware:1.1.1:*:*:*:*:*:*:*',
    };
    await firmwareProduct(h, [firmware]);
    await firmwareProduct(h, [firmware], { sku: 'AX21', subject: 'cpe:2.3:h:tp-link:archer_ax21:-:*:*:*:*:*:*:*' });
    await firmwareProduct(h, [firmware], { sku: 'C7', subject: 'cpe:2.3:h:tp-link:archer_c7:5.0:*:*:*:*:*:*:*' });
    await importFeeds(h, fixture('cisa-kev.json'));
    await importNvd(h, 'CVE-2023-1389');

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
    const { agent } = await signedInAgent(h, 'acme', 'viewer@acme.example', 'viewer');
    const page = (await agent.get('/console/o/acme/products/RT-1')).body;
    assert.match(page, /No known vulnerability in the components of its releases/);
    assert.match(page, /<span id="conditional-findings">1 more conditional on a part nothing in the SBOM decides/);
    // CVE-2023-1389 is in CISA KEV: only the asserted finding is carried to Article 14.
    const signals: Array<{ source: string; product_sku: string; cve: string }> = (
      await cli('signal', 'list', '--org', 'acme', '--json')
    ).json();
    assert.deepEqual(
      signals.filter((s) => s.source === 'platform:vulnerability-intelligence').map((s) => [s.product_sku, s.cve]),
      [['AX21', 'CVE-2023-1389']],
    );
  });

  it('decides the platform term by each product’s own components when one import refreshes them together', async (t) => {
    const h = await buildHarness(t);
    const cli = cliOf(h);
    // The same firmware component in three products' revisions; which device it runs on differs.
    const firmware = {
      name: 'archer_ax21_firmware',
      version: '1.1.1',
      cpe: 'cpe:2.3:o:tp-link:archer_ax21_firmware:1.1.1:*:*:*:*:*:*:*',
    };
    // Named only by the record's `vulnerable: false` entry (archer_ax21:-): its version value decides that term false.
    const otherHardware = { name: 'archer_ax21', version: '2.0', cpe: 'cpe:2.3:h:tp-link:archer_ax21:2.0:*:*:*:*:*:*:*' };
    // Under a pair no record names: read for nothing, and no finding.
    const unrelated = { name: 'acme-daemon', version: '1.0', cpe: 'cpe:2.3:a:acme:acme_daemon:1.0:*:*:*:*:*:*:*' };
    await firmwareProduct(h, [firmware, unrelated], { sku: 'BARE' });
    await firmwareProduct(h, [firmware, otherHardware, unrelated], { sku: 'OTHER' });
    await firmwareProduct(h, [firmware, unrelated], { sku: 'AX21', subject: 'cpe:2.3:h:tp-link:archer_ax21:-:*:*:*:*:*:*:*' });
    const imported = await cli('vuln', 'import', nvdFile('CVE-2023-1389'), '--json');
    assert.equal(imported.code, 0, imported.stderr);
    assert.deepEqual(imported.json().findings, { new: 2, resolved: 0 });

    type Row = Listed & { product_sku: string };
    const asserted: Row[] = (await cli('finding', 'list', '--org', 'acme', '--json')).json().findings;
    assert.deepEqual(
      asserted.map((f) => [f.product_sku, f.vulnerability, f.component.name, f.match?.conditional]),
      [['AX21', 'CVE-2023-1389', 'archer_ax21_firmware', false]],
    );
    const conditional: Row[] = (await cli('finding', 'list', '--org', 'acme', '--conditional', '--json')).json().findings;
    assert.deepEqual(
      conditional.map((f) => [f.product_sku, f.component.name, f.match?.condition]),
      [['BARE', 'archer_ax21_firmware', 'only with cpe:2.3:h:tp-link:archer_ax21:-']],
      'OTHER runs on another device: no finding, not even a conditional one',
    );
  });

  it('gives each finding its own new evidence when one import changes several records', async (t) => {
    const h = await buildHarness(t);
    const cli = cliOf(h);
    await firmwareProduct(h, [
      { name: 'openssl', version: '1.0.2zf', cpe: 'cpe:2.3:a:openssl:openssl:1.0.2zf:*:*:*:*:*:*:*' },
      { name: 'dnsmasq', version: '2.84', cpe: 'cpe:2.3:a:thekelleys:dnsmasq:2.84:*:*:*:*:*:*:*' },
    ]);
    await importNvd(h, 'CVE-2023-0286', 'CVE-2021-3448');
    const dir = mkdtempSync(join(tmpdir(), 'cra-nvd-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    // Both records widened, each its own way, in one feed file.
    const widened = (cve: string, from: string, to: string) => {
      const text = JSON.stringify(JSON.parse(readFileSync(nvdFile(cve), 'utf8')));
      assert.ok(text.includes(from), `${cve} has ${from}`);
      return { ...JSON.parse(text.replace(from, to)), lastModified: '2026-11-01T00:00:00.000' };
    };
    const feed = {
      format: 'NVD_CVE',
      version: '2.0',
      vulnerabilities: [
        { cve: widened('CVE-2023-0286', '"versionEndExcluding":"1.0.2zg"', '"versionEndExcluding":"1.0.2zh"') },
        { cve: widened('CVE-2021-3448', '"versionEndExcluding":"2.85"', '"versionEndExcluding":"2.86"') },
      ],
    };
    writeFileSync(join(dir, 'changed.json'), JSON.stringify(feed));
    const changed = await cli('vuln', 'import', join(dir, 'changed.json'), '--json');
    assert.equal(changed.code, 0, changed.stderr);
    assert.deepEqual(changed.json().findings, { new: 0, resolved: 0 });
    const findings: Listed[] = (await cli('finding', 'list', '--org', 'acme', '--json')).json().findings;
    assert.deepEqual(
      findings
        .map((f) => [f.vulnerability, f.component.name, (f.match as unknown as { range: { end_excluding?: string } }).range.end_excluding])
        .sort(),
      [
        ['CVE-2021-3448', 'dnsmasq', '2.86'],
        ['CVE-2023-0286', 'openssl', '1.0.2zh'],
      ],
    );
  });

  it('makes one finding of a CVE found by purl and by CPE, both sources named', async (t) => {
    const h = await buildHarness(t);
    await importRecords(h, RECORDS.salt2);
    await firmwareProduct(h, [
      { name: 'salt', version: '3000.1', purl: 'pkg:pypi/salt@3000.1', cpe: 'cpe:2.3:a:saltstack:salt:3000.1:*:*:*:*:*:*:*' },
    ]);
    const before: Listed[] = (await cliOf(h)('finding', 'list', '--org', 'acme', '--json')).json().findings;
    assert.deepEqual(
      before.map((f) => [f.vulnerability, f.sources, f.match]),
      [['CVE-2020-11652', ['osv'], null]],
    );
    const imported = await cliOf(h)('vuln', 'import', nvdFile('CVE-2020-11652'), '--json');
    assert.deepEqual(imported.json().findings, { new: 0, resolved: 0 }, 'the same finding, not a second one');
    const after: Listed[] = (await cliOf(h)('finding', 'list', '--org', 'acme', '--json')).json().findings;
    assert.deepEqual(
      after.map((f) => [f.vulnerability, f.sources, f.match?.cpe]),
      [['CVE-2020-11652', ['nvd', 'osv'], 'cpe:2.3:a:saltstack:salt:3000.1:*:*:*:*:*:*:*']],
    );
  });
  it('follows a changed record: a narrowed range resolves the finding, a rejected record too', async (t) => {
    const h = await buildHarness(t);
    const cli = cliOf(h);
    await firmwareProduct(h, [{ name: 'openssl', version: '1.0.2zf', cpe: 'cpe:2.3:a:openssl:openssl:1.0.2zf:*:*:*:*:*:*:*' }]);
    await importNvd(h, 'CVE-2023-0286');
    const dir = mkdtempSync(join(tmpdir(), 'cra-nvd-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const record = JSON.parse(readFileSync(nvdFile('CVE-2023-0286'), 'utf8'));
    // The 1.0.2 branch's range ends at 1.0.2zf now: 1.0.2zf is no longer in it.
    const narrowed = JSON.parse(JSON.stringify(record).replace('"versionEndExcluding":"1.0.2zg"', '"versionEndExcluding":"1.0.2zf"'));
    assert.notDeepEqual(narrowed, record);
    writeFileSync(join(dir, 'narrowed.json'), JSON.stringify({ ...narrowed, lastModified: '2026-11-01T00:00:00.000' }));
    const changed = await cli('vuln', 'import', join(dir, 'narrowed.json'), '--json');
    assert.equal(changed.code, 0, changed.stderr);
    assert.deepEqual(changed.json().findings, { new: 0, resolved: 1 });
    assert.deepEqual((await cli('finding', 'list', '--org', 'acme', '--json')).json().findings, []);
    // Back as it was, then rejected: found again, then resolved with the record.
    await importNvd(h, 'CVE-2023-0286');
    assert.equal((await cli('finding', 'list', '--org', 'acme', '--json')).json().count, 1);
    writeFileSync(
      join(dir, 'rejected.json'),
      JSON.stringify({ ...record, vulnStatus: 'Rejected', lastModified: '2026-11-02T00:00:00.000' }),
    );
    const rejected = await cli('vuln', 'import', join(dir, 'rejected.json'), '--json');
    assert.deepEqual(rejected.json().findings, { new: 0, resolved: 1 });
  });
});
