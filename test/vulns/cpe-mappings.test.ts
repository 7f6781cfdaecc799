import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildHarness } from '../helpers/app.js';
import { firmwareProduct, importNvd } from './firmware-helpers.js';
import { cliOf } from './helpers.js';

// Candidates and confirmed mappings (firmware.md): components named by name and version alone get
// candidate CPEs; a person confirms one for the name with cra-admin, and every product holding a
// component of that name is matched through it; undone the same way. A registry entry each.

const UBOOT = 'cpe:2.3:a:denx:u-boot:*:*:*:*:*:*:*:*';

type Finding = { vulnerability: string; product_sku: string; match: { cpe: string; cpe_source: string; confidence: string } | null };

describe('candidate CPEs and confirmed mappings', () => {
  it('lists candidates from the vendor table and the NVD names held', async (t) => {
    const h = await buildHarness(t);
    await importNvd(h, 'CVE-2023-1389');
    await firmwareProduct(h, [
      { name: 'U_Boot', version: '2022.01' },
      { name: 'archer-ax21-firmware', version: '1.1.1' },
      { name: 'acme-blob', version: '7' },
      { name: 'openssl', version: '3.0.7', cpe: 'cpe:2.3:a:openssl:openssl:3.0.7:*:*:*:*:*:*:*' },
    ]);
    await firmwareProduct(h, [{ name: 'U_Boot', version: '2022.01' }], { sku: 'RT-2' });
    const listed = await cliOf(h)('component', 'candidates', '--org', 'acme', '--json');
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual(listed.json(), [
      { name: 'acme-blob', version: '7', products: ['RT-1'], candidates: [] },
      {
        name: 'archer-ax21-firmware',
        version: '1.1.1',
        products: ['RT-1'],
        candidates: [{ cpe: 'cpe:2.3:*:tp-link:archer_ax21_firmware:*:*:*:*:*:*:*:*', confidence: 'medium' }],
      },
      { name: 'U_Boot', version: '2022.01', products: ['RT-1', 'RT-2'], candidates: [{ cpe: UBOOT, confidence: 'high' }] },
    ]);
    const one = await cliOf(h)('component', 'candidates', '--org', 'acme', '--sku', 'RT-2');
    assert.match(one.stdout, /U_Boot .*2022\.01 .*cpe:2\.3:a:denx:u-boot:\*.* \(high\)/);
    assert.doesNotMatch(one.stdout, /acme-blob/);
  });

  it('matches every product holding the name through a confirmed CPE, and stops when it is removed', async (t) => {
    const h = await buildHarness(t);
    const cli = cliOf(h);
    await firmwareProduct(h, [{ name: 'u-boot', version: '2022.01' }]);
    await firmwareProduct(h, [{ name: 'u-boot', version: '2022.01' }], { sku: 'RT-2' });
    await firmwareProduct(h, [{ name: 'u-boot', version: '2022.01' }], { org: 'other', sku: 'RT-1' });
    await importNvd(h, 'CVE-2022-30552');
    const list = async (org = 'acme'): Promise<Finding[]> => (await cli('finding', 'list', '--org', org, '--json')).json().findings;
    assert.deepEqual(await list(), [], 'no identifier, no finding');

    const mapped = await cli('component', 'map-cpe', '--org', 'acme', '--name', 'U_Boot', '--cpe', UBOOT);
    assert.equal(mapped.code, 0, mapped.stderr);
    assert.match(mapped.stdout, /mapped to u_boot; 1 component matched again/);
    const found = await list();
    assert.deepEqual(found.map((f) => [f.vulnerability, f.product_sku, f.match?.cpe, f.match?.cpe_source, f.match?.confidence]).sort(), [
      ['CVE-2022-30552', 'RT-1', UBOOT, 'mapping', 'confirmed'],
      ['CVE-2022-30552', 'RT-2', UBOOT, 'mapping', 'confirmed'],
    ]);
    assert.deepEqual(await list('other'), [], "another organisation's u-boot is not mapped");
    assert.deepEqual((await cli('component', 'candidates', '--org', 'acme', '--json')).json(), [], 'a mapped name is no candidate');
    const again = await cli('component', 'map-cpe', '--org', 'acme', '--name', 'u-boot', '--cpe', UBOOT);
    assert.match(again.stdout, /was already mapped/);

    const removed = await cli('component', 'map-cpe', '--org', 'acme', '--name', 'u-boot', '--remove', '--json');
    assert.equal(removed.code, 0, removed.stderr);
    assert.equal(removed.json().cpe, UBOOT);
    assert.deepEqual(await list(), [], 'resolved once the mapping is undone');
    const entries = await h.database.db
      .selectFrom('registry_entries as r')
      .innerJoin('organisations as o', 'o.id', 'r.org_id')
      .select(['r.action', 'r.subject', 'r.actor'])
      .where('o.slug', '=', 'acme')
      .where('r.action', 'like', 'component.%')
      .orderBy('r.seq')
      .execute();
    assert.deepEqual(entries, [
      { action: 'component.cpe_mapped', subject: 'u_boot', actor: 'cli' },
      { action: 'component.cpe_unmapped', subject: 'u_boot', actor: 'cli' },
    ]);
  });

  it('refuses a CPE without vendor or that does not parse, a removal with nothing mapped, and a call without --cpe', async (t) => {
    const h = await buildHarness(t);
    const cli = cliOf(h);
    await firmwareProduct(h, [{ name: 'u-boot', version: '2022.01' }]);
    const noVendor = await cli('component', 'map-cpe', '--org', 'acme', '--name', 'u-boot', '--cpe', 'cpe:2.3:a:*:u-boot:*:*:*:*:*:*:*:*');
    assert.equal(noVendor.code, 1);
    assert.match(noVendor.stderr, /must name its vendor and product/);
    const broken = await cli('component', 'map-cpe', '--org', 'acme', '--name', 'u-boot', '--cpe', 'cpe:2.3:a:denx:u*b:1');
    assert.equal(broken.code, 1);
    assert.match(broken.stderr, /the CPE does not parse/);
    const nothing = await cli('component', 'map-cpe', '--org', 'acme', '--name', 'u-boot', '--remove');
    assert.equal(nothing.code, 1);
    assert.match(nothing.stderr, /no CPE is mapped to the component name "u_boot"/);
    await cli('component', 'map-cpe', '--org', 'acme', '--name', 'u-boot', '--cpe', UBOOT);
    await cli('component', 'map-cpe', '--org', 'acme', '--name', 'u-boot', '--cpe', 'cpe:2.3:a:denx:u_boot');
    const which = await cli('component', 'map-cpe', '--org', 'acme', '--name', 'u-boot', '--remove');
    assert.equal(which.code, 1);
    assert.match(which.stderr, /several CPEs are mapped to "u_boot"/);
    const usage = await cli('component', 'map-cpe', '--org', 'acme', '--name', 'u-boot');
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /give --cpe CPE, or --remove/);
  });
});
