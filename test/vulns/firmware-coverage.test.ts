import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildHarness } from '../helpers/app.js';
import { signedInAgent } from '../helpers/console.js';
import { one, parseHtml, text } from '../helpers/html.js';
import { firmwareProduct, importNvd } from './firmware-helpers.js';
import { cliOf } from './helpers.js';

// Coverage of a firmware SBOM (firmware.md, Coverage): each component matchable by purl, by CPE,
// or not, and why not, named: `finding coverage` and the product page say the same.

describe('coverage of firmware components', () => {
  it('names why each component cannot be matched by CPE, and which have candidate CPEs', async (t) => {
    const h = await buildHarness(t);
    await importNvd(h, 'CVE-2023-1389');
    await firmwareProduct(h, [
      { name: 'openssl', version: '3.0.7', cpe: 'cpe:2.3:a:openssl:openssl:3.0.7:*:*:*:*:*:*:*' },
      { name: 'busybox', version: '1.36.1-r0', cpe: 'cpe:2.3:*:*:busybox:1.36.1:*:*:*:*:*:*:*' },
      { name: 'acme-daemon', version: '1.0', cpe: 'cpe:2.3:*:*:acme-daemon:1.0:*:*:*:*:*:*:*' },
      { name: 'widget', version: '1.0', cpe: 'cpe:2.3:a:acme:w*dget:1.0:*:*:*:*:*:*:*' },
      { name: 'curl', cpe: 'cpe:2.3:a:haxx:curl:*:*:*:*:*:*:*:*' },
      { name: 'tool', version: 'latest', cpe: 'cpe:2.3:a:acme:tool:latest:*:*:*:*:*:*:*' },
      { name: 'zlib', version: '1.2.13' },
      { name: 'archer_ax21_firmware', version: '1.1.1' },
      { name: 'acme-blob', version: '7' },
      { name: 'salt', version: '3000.1', purl: 'pkg:pypi/salt@3000.1' },
    ]);
    const coverage = await cliOf(h)('finding', 'coverage', '--org', 'acme', '--json');
    assert.equal(coverage.code, 0, coverage.stderr);
    assert.deepEqual(coverage.json(), [
      {
        sku: 'RT-1',
        components: 10,
        matchable: 2,
        matchable_by: { purl: 0, cpe: 2 },
        not_matchable: {
          no_identifier: 3,
          no_identifier_with_candidates: 2,
          cpe_invalid: 1,
          cpe_vendor_unknown: 1,
          version_missing: 1,
          version_unparsable: 1,
          ecosystem_not_covered: 1,
        },
      },
    ]);
    const table = await cliOf(h)('finding', 'coverage', '--org', 'acme');
    assert.match(table.stdout, /3 \(2 with candidates\)/);

    const { agent } = await signedInAgent(h, 'acme', 'viewer@acme.example', 'viewer');
    const page = await agent.get('/console/o/acme/products/RT-1');
    const facts = text(one(parseHtml(page.body), '#coverage'));
    assert.match(facts, /Matchable ?2 \(20 %\): 0 by a package URL [^·]*· 2 by a CPE against the NVD/);
    assert.match(
      facts,
      /3 with neither package URL nor CPE \(2 of them with candidate CPEs to confirm\) · 1 with a CPE that does not parse · 1 with a CPE naming no vendor/,
    );
  });
});
