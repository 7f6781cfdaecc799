import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildHarness, type Harness } from '../helpers/app.js';
import { signedInAgent } from '../helpers/console.js';
import { one, parseHtml, tableRows, text } from '../helpers/html.js';
import { trCycloneDx } from '../sbom/conformance/tr-documents.js';
import { cycloneDx16 } from '../sbom/sbom-fixtures.js';

// SBOM conformance in the console (sbom-conformance.md, Where it shows): a badge per revision
// and per product, the report a click away, the Products page filtered by it, Today listing the
// products whose newest SBOM does not conform, and the organisation's policy set by an owner or
// admin (a viewer sees it, changes nothing).

const base = '/console/o/acme';

async function twoProducts(h: Harness) {
  await h.tenant('acme', ['products:write']);
  await h.products.addProduct('acme', 'GOOD-1', { name: 'Gateway', firmwareVersion: '1.0.0' });
  await h.products.addProduct('acme', 'BAD-1', { name: 'Camera', firmwareVersion: '1.0.0' });
  await h.products.addProduct('acme', 'NONE-1', { name: 'Sensor', firmwareVersion: '1.0.0' });
  const upload = (sku: string, doc: unknown) =>
    h.sbom.uploadSbom({ org: 'acme', sku, bytes: Buffer.from(JSON.stringify(doc)), actor: 'cli' });
  await upload('GOOD-1', trCycloneDx(2));
  await upload('BAD-1', cycloneDx16(3, { version: '2.0.0' }));
}

describe('console: SBOM conformance', () => {
  it('badges each product and revision, and the report shows fields, counts and examples', async (t) => {
    const h = await buildHarness(t);
    await twoProducts(h);
    const { agent: viewer } = await signedInAgent(h, 'acme', 'viewer@acme.example', 'viewer');

    const products = parseHtml((await viewer.get(`${base}/products`)).body);
    const rows = tableRows(one(products, 'table'));
    const bySku = new Map(rows.map((r) => [r[0], r]));
    assert.equal(bySku.get('GOOD-1')![5], 'conforms report of GOOD-1');
    assert.match(bySku.get('BAD-1')![5]!, /^\d+ fields missing/);
    assert.equal(bySku.get('NONE-1')![5], '—');

    const product = parseHtml((await viewer.get(`${base}/products/BAD-1`)).body);
    const badge = one(product, 'a.badge');
    assert.match(text(badge), /fields missing/);
    const report = await viewer.get(badge.getAttribute('href')!);
    assert.equal(report.statusCode, 200);
    const page = parseHtml(report.body);
    assert.match(text(one(page, 'p[role="status"]')), /^Does not conform to BSI TR-03183-2 .*missing .*component\.hash_sha512/);
    const fields = tableRows(page.querySelectorAll('table')[1]!);
    const hash = fields.find((r) => r[0] === 'component.hash_sha512')!;
    assert.equal(hash[1], 'required');
    assert.equal(hash[2], '4');
    assert.match(hash[3]!, /device 2\.0\.0: /);

    const ntia = parseHtml((await viewer.get(`${badge.getAttribute('href')!}?profile=ntia-minimum`)).body);
    assert.match(text(one(ntia, 'p[role="status"]')), /NTIA/);

    const revision = parseHtml((await viewer.get(`${base}/products/GOOD-1/releases/1.0.0/revisions/1`)).body);
    assert.match(text(revision.body), /Conformance to BSI TR-03183-2.*: conforms/);
  });

  it('filters the Products page by the newest SBOM, and Today lists the ones that do not conform', async (t) => {
    const h = await buildHarness(t);
    await twoProducts(h);
    const { agent: viewer } = await signedInAgent(h, 'acme', 'viewer@acme.example', 'viewer');
    const skus = async (filter: string) =>
      tableRows(one(parseHtml((await viewer.get(`${base}/products?conformance=${filter}`)).body), 'table')).map((r) => r[0]);
    assert.deepEqual(await skus('conforms'), ['GOOD-1']);
    assert.deepEqual(await skus('not-conforming'), ['BAD-1']);
    assert.deepEqual(await skus('no-sbom'), ['NONE-1']);

    const today = parseHtml((await viewer.get(`${base}/today`)).body);
    const section = one(today, '#sbom-conformance');
    assert.deepEqual(
      tableRows(one(section, 'table')).map((r) => r[0]),
      ['BAD-1 Camera'],
    );
    // A newer conforming revision takes the product off the list.
    await h.sbom.uploadSbom({ org: 'acme', sku: 'BAD-1', bytes: Buffer.from(JSON.stringify(trCycloneDx(1))), actor: 'cli' });
    const later = parseHtml((await viewer.get(`${base}/today`)).body);
    assert.match(text(one(later, '#sbom-conformance')), /every active product conforms/);
  });

  it('an admin sets the SBOM policy; a viewer sees it and cannot; another organisation’s report is a 404', async (t) => {
    const h = await buildHarness(t);
    await twoProducts(h);
    await h.tenant('other', ['products:read']);
    const { agent: viewer } = await signedInAgent(h, 'acme', 'viewer@acme.example', 'viewer');
    const { agent: admin } = await signedInAgent(h, 'acme', 'admin@acme.example', 'admin');
    const { agent: outsider } = await signedInAgent(h, 'other', 'owner@other.example', 'owner');

    const seen = parseHtml((await viewer.get(`${base}/organisation`)).body);
    assert.ok((one(seen, 'input[value="report"]') as HTMLInputElement).hasAttribute('checked'));
    assert.ok(one(seen, 'input[value="report"]').hasAttribute('disabled'));
    assert.equal((await viewer.post(`${base}/organisation/sbom-policy`, { sbom_policy: 'require:ntia-minimum' })).statusCode, 403);

    await admin.get(`${base}/organisation`);
    const saved = await admin.post(`${base}/organisation/sbom-policy`, { sbom_policy: 'require:bsi-tr-03183-2-v2.1' });
    assert.equal(saved.statusCode, 303);
    assert.deepEqual(await h.sbomConformance.policy('acme'), { policy: 'require:bsi-tr-03183-2-v2.1', profile: 'bsi-tr-03183-2-v2.1' });
    const bad = await admin.post(`${base}/organisation/sbom-policy`, { sbom_policy: 'require:anything' });
    assert.equal(bad.statusCode, 400);
    assert.match(text(one(parseHtml(bad.body), '#sbom_policy-error')), /one of report, require:bsi-tr-03183-2-v2\.1, require:ntia-minimum/);
    assert.equal((await h.sbomConformance.policy('acme')).policy, 'require:bsi-tr-03183-2-v2.1');

    const theirs = await outsider.get('/console/o/other/products/BAD-1/releases/2.0.0/revisions/1/conformance');
    assert.equal(theirs.statusCode, 404);
    const ours = await outsider.get(`${base}/products/BAD-1/releases/2.0.0/revisions/1/conformance`);
    assert.equal(ours.statusCode, 404);
  });
});
