import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildHarness } from '../helpers/app.js';
import { signedInAgent } from '../helpers/console.js';
import { one, parseHtml, tableRows, text } from '../helpers/html.js';
import { firmwareProduct, importNvd } from '../vulns/firmware-helpers.js';

// Firmware in the console (firmware.md; issue 39, item 7): a CPE finding's evidence in a sentence
// on its vulnerability's page, conditional findings listed apart with their condition, the
// product's coverage linking to the candidate CPEs, and a person confirming (and undoing) one,
// organisation-wide, through the service of `cra-admin component map-cpe`.

const base = '/console/o/acme';

describe('console: firmware findings', () => {
  it('says why a CPE finding exists, in a sentence, on its vulnerability’s page', async (t) => {
    const h = await buildHarness(t);
    await firmwareProduct(h, [{ name: 'openssl', version: '1.0.2zf', cpe: 'cpe:2.3:a:openssl:openssl:1.0.2zf:*:*:*:*:*:*:*' }]);
    await importNvd(h, 'CVE-2023-0286');
    const { agent: viewer } = await signedInAgent(h, 'acme', 'viewer@acme.example', 'viewer');

    const page = await viewer.get(`${base}/vulnerabilities/CVE-2023-0286`);
    assert.equal(page.statusCode, 200);
    assert.equal(
      text(one(parseHtml(page.body), 'table.findings .evidence')),
      'openssl 1.0.2zf from the SBOM is in cpe:2.3:a:openssl:openssl ≥ 1.0.2, < 1.0.2zg.',
    );
  });

  it('lists a finding nothing in the SBOM decides apart, with its condition', async (t) => {
    const h = await buildHarness(t);
    await firmwareProduct(h, [
      { name: 'archer_ax21_firmware', version: '1.1.1', cpe: 'cpe:2.3:o:tp-link:archer_ax21_firmware:1.1.1:*:*:*:*:*:*:*' },
    ]);
    await importNvd(h, 'CVE-2023-1389');
    const { agent: viewer } = await signedInAgent(h, 'acme', 'viewer@acme.example', 'viewer');

    const list = parseHtml((await viewer.get(`${base}/vulnerabilities`)).body);
    assert.equal(tableRows(one(list, '#findings')).filter((r) => r.length === 10).length, 0, 'not among the asserted findings');
    const apart = one(list, '#conditional-apart a');
    assert.equal(text(apart), '1 conditional finding');

    const conditional = parseHtml((await viewer.get(apart.getAttribute('href')!)).body);
    assert.ok((one(conditional, '#conditional') as HTMLInputElement).hasAttribute('checked'));
    const [row] = tableRows(one(conditional, '#findings'));
    assert.equal(row![0], 'CVE-2023-1389');
    assert.match(text(one(conditional, '#findings .condition')), /^only with cpe:2\.3:h:tp-link:archer_ax21/);
    assert.equal(conditional.querySelector('#conditional-apart'), null);
  });
});

describe('console: candidate CPEs', () => {
  it('links coverage to the candidates, and an analyst confirms one organisation-wide, then undoes it', async (t) => {
    // Two products hold the same curl: one component of the organisation, matched again once.
    const h = await buildHarness(t);
    await firmwareProduct(h, [{ name: 'curl', version: '7.88.0' }]);
    await firmwareProduct(h, [{ name: 'curl', version: '7.88.0' }], { sku: 'RT-2' });
    await importNvd(h, 'CVE-2023-0286');
    const { agent: viewer } = await signedInAgent(h, 'acme', 'viewer@acme.example', 'viewer');
    const { agent: analyst } = await signedInAgent(h, 'acme', 'analyst@acme.example', 'analyst');

    const product = parseHtml((await viewer.get(`${base}/products/RT-1`)).body);
    const link = one(product, '#candidates-link');
    assert.equal(text(link), '1 of them with candidate CPEs to confirm');
    const viewed = parseHtml((await viewer.get(link.getAttribute('href')!)).body);
    const [curl] = tableRows(one(viewed, '#candidates'));
    assert.equal(curl![0], 'curl 7.88.0');
    assert.equal(curl![1], 'RT-1', 'the link shows the product’s own');
    assert.match(curl![2]!, /cpe:2\.3:a:haxx:curl:\*/);
    assert.equal(viewed.querySelector('#candidates form'), null, 'a viewer reads, confirms nothing');

    const page = parseHtml((await analyst.get(`${base}/components/candidates`)).body);
    assert.equal(tableRows(one(page, '#candidates'))[0]![1], 'RT-1, RT-2');
    const choices = [...page.querySelectorAll('#candidates input[name="cpe"]')].map((i) => i.getAttribute('value'));
    assert.ok(choices.includes('cpe:2.3:a:haxx:curl:*:*:*:*:*:*:*:*'), choices.join(' '));
    const confirmed = await analyst.post(`${base}/components/cpe-mappings`, { name: 'curl', cpe: 'cpe:2.3:a:haxx:curl:*:*:*:*:*:*:*:*' });
    assert.equal(confirmed.statusCode, 303);
    const after = parseHtml((await analyst.get(confirmed.headers.location as string)).body);
    assert.equal(
      text(one(after, '.notice')),
      'cpe:2.3:a:haxx:curl:*:*:*:*:*:*:*:* is confirmed for "curl": 1 component of that name matched again.',
    );
    assert.equal(after.querySelector('#candidates'), null, 'no component lacks an identifier any more');
    assert.deepEqual(tableRows(one(after, '#mappings'))[0]!.slice(0, 2), ['curl', 'cpe:2.3:a:haxx:curl:*:*:*:*:*:*:*:*']);
    const entries = [];
    for await (const e of h.registry.entries('acme')) entries.push(e);
    assert.ok(entries.some((e) => e.action === 'component.cpe_mapped' && e.actor === 'user:analyst@acme.example'));

    const undone = await analyst.post(`${base}/components/cpe-mappings/remove`, {
      name: 'curl',
      cpe: 'cpe:2.3:a:haxx:curl:*:*:*:*:*:*:*:*',
    });
    assert.equal(undone.statusCode, 303);
    const back = parseHtml((await analyst.get(undone.headers.location as string)).body);
    assert.match(text(one(back, '.notice')), /^The mapping of "curl" is undone/);
    assert.equal(tableRows(one(back, '#candidates')).length, 1);
    // Undone twice (another tab): said on the page.
    const again = await analyst.post(`${base}/components/cpe-mappings/remove`, {
      name: 'curl',
      cpe: 'cpe:2.3:a:haxx:curl:*:*:*:*:*:*:*:*',
    });
    assert.equal(again.statusCode, 409);
    assert.match(text(one(parseHtml(again.body), '.alert')), /no CPE is mapped to the component name "curl"/);
  });

  it('refuses a CPE without its vendor and product, next to its component', async (t) => {
    const h = await buildHarness(t);
    await firmwareProduct(h, [{ name: 'acme-blob', version: '2.0' }]);
    const { agent: analyst } = await signedInAgent(h, 'acme', 'analyst@acme.example', 'analyst');
    await analyst.get(`${base}/components/candidates`);
    const refused = await analyst.post(`${base}/components/cpe-mappings`, { name: 'acme-blob', cpe: 'cpe:2.3:a:acme' });
    assert.equal(refused.statusCode, 400);
    const page = parseHtml(refused.body);
    assert.match(text(one(page, '#candidates .field-error')), /^the CPE must name its vendor and product/);
    assert.equal(page.querySelector('#mappings'), null);
  });
});
