import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { PRODUCTS_PER_PAGE } from '../../src/console/products.page.js';
import { listRegistry } from '../../src/registry/registry.service.js';
import { useHarness } from '../helpers/app.js';
import { signedInAgent } from '../helpers/console.js';

const DROPWIZARD = readFileSync(new URL('../fixtures/sbom/cyclonedx/dropwizard-1.3.15-bom.json', import.meta.url));

/** A multipart form as a browser sends it, with the CSRF token and one file. */
function multipart(csrf: string, file: Buffer, name = 'bom.json') {
  const boundary = '----console-test-boundary';
  const payload = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\n${csrf}\r\n`),
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="sbom"; filename="${name}"\r\nContent-Type: application/json\r\n\r\n`,
    ),
    file,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

describe('console products', () => {
  const harness = useHarness();

  it('adds, edits and archives a product with errors beside the fields; the registry names the user', async () => {
    const h = harness();
    const org = await h.orgs.createOrg({ slug: 'prod-org' });
    const { agent } = await signedInAgent(h, 'prod-org', 'pat@example.com', 'admin');
    await agent.get('/console/o/prod-org/products/new');
    const bad = await agent.post('/console/o/prod-org/products', {
      sku: 'bad sku',
      name: '',
      gtin: '123',
      firmware_version: '',
      end_of_support: '31/12/2030',
    });
    assert.equal(bad.statusCode, 400);
    assert.match(bad.body, /id="sku-error">A SKU is 1 to 100 letters/);
    assert.match(bad.body, /id="name-error">Give the product a name/);
    assert.match(bad.body, /id="end_of_support-error">Give a date as YYYY-MM-DD/);
    const badGtin = await agent.post('/console/o/prod-org/products', {
      sku: 'RTR-100',
      name: 'Router',
      gtin: '4006381333932',
      firmware_version: '',
      end_of_support: '',
    });
    assert.match(badGtin.body, /id="gtin-error">&quot;4006381333932&quot; is not a valid GTIN/);
    const added = await agent.post('/console/o/prod-org/products', {
      sku: 'RTR-100',
      name: 'Router 100',
      gtin: '4006381333931',
      firmware_version: '2.4.1',
      end_of_support: '2030-12-31',
    });
    assert.equal(added.statusCode, 303);
    assert.equal(added.headers.location, '/console/o/prod-org/products/RTR-100');
    const duplicate = await agent.post('/console/o/prod-org/products', {
      sku: 'RTR-100',
      name: 'Again',
      gtin: '',
      firmware_version: '',
      end_of_support: '',
    });
    assert.match(duplicate.body, /id="sku-error">another product of this organisation already has that SKU or GTIN/);

    await agent.get('/console/o/prod-org/products/RTR-100/edit');
    assert.equal(
      (
        await agent.post('/console/o/prod-org/products/RTR-100', {
          name: 'Router 100 Pro',
          gtin: '4006381333931',
          firmware_version: '2.5.0',
          end_of_support: '2031-06-30',
        })
      ).statusCode,
      303,
    );
    const list = await agent.get('/console/o/prod-org/products');
    assert.match(list.body, /RTR-100<\/a><\/td><td>Router 100 Pro<\/td><td>active<\/td><td>none<\/td>/);
    const detail = await agent.get('/console/o/prod-org/products/RTR-100');
    assert.match(detail.body, /<dt>End of support<\/dt><dd>2031-06-30<\/dd>/);
    assert.equal((await agent.post('/console/o/prod-org/products/RTR-100/archive', {})).statusCode, 303);
    assert.match((await agent.get('/console/o/prod-org/products')).body, /Router 100 Pro<\/td><td>archived/);

    const actions = [];
    for await (const e of listRegistry(h.database, org.id)) if (e.action.startsWith('product.')) actions.push(`${e.actor} ${e.action}`);
    assert.deepEqual(actions, [
      'user:pat@example.com product.added',
      'user:pat@example.com product.updated',
      'user:pat@example.com product.archived',
    ]);
  });

  it('uploads an SBOM through the ingest service and lists the revision and its components', async () => {
    const h = harness();
    const org = await h.orgs.createOrg({ slug: 'sbom-org' });
    await h.products.addProduct('sbom-org', 'DW-1', { name: 'Dropwizard box' });
    const { agent } = await signedInAgent(h, 'sbom-org', 'ana@example.com', 'analyst');
    await agent.get('/console/o/sbom-org/products/DW-1');
    const upload = () =>
      h.app.inject({
        method: 'POST',
        url: '/console/o/sbom-org/products/DW-1/sbom',
        ...withCookies(agent, multipart(agent.csrf, DROPWIZARD)),
      });
    const first = await upload();
    assert.equal(first.statusCode, 200);
    assert.match(first.body, /Stored as revision 1 of release 1\.3\.15: 167 components \(cyclonedx 1\.2\)\./);
    assert.match((await upload()).body, /This exact document is already revision 1 of release 1\.3\.15; nothing new was stored\./);
    const invalid = await h.app.inject({
      method: 'POST',
      url: '/console/o/sbom-org/products/DW-1/sbom',
      ...withCookies(agent, multipart(agent.csrf, Buffer.from('{"bomFormat": "CycloneDX"'))),
    });
    assert.equal(invalid.statusCode, 400);
    assert.match(invalid.body, /id="sbom-error">the document is not valid JSON/);

    const revision = await agent.get('/console/o/sbom-org/products/DW-1/releases/1.3.15/revisions/1');
    assert.equal(revision.statusCode, 200);
    assert.equal((revision.body.match(/<tr><td class="num">/g) ?? []).length, 167);
    assert.match(revision.body, /pkg:maven\/io\.dropwizard\.metrics\/metrics-core@/);
    assert.equal((await agent.get('/console/o/sbom-org/products/DW-1/releases/1.3.15/revisions/2')).statusCode, 404);
    const entries = [];
    for await (const e of listRegistry(h.database, org.id)) entries.push(e);
    assert.equal(entries.find((e) => e.action === 'sbom.ingested')?.actor, 'user:ana@example.com');
  });

  it(`lists the catalogue ${PRODUCTS_PER_PAGE} products to a page`, async () => {
    const h = harness();
    await h.orgs.createOrg({ slug: 'many-org' });
    const total = PRODUCTS_PER_PAGE + 30;
    for (let i = 0; i < total; i++) await h.products.addProduct('many-org', `P-${String(i).padStart(4, '0')}`, { name: `Product ${i}` });
    const { agent } = await signedInAgent(h, 'many-org', 'lee@example.com', 'viewer');
    const skus = (body: string) => [...body.matchAll(/>(P-\d{4})<\/a>/g)].map((m) => m[1]);
    const first = await agent.get('/console/o/many-org/products');
    const firstSkus = skus(first.body);
    assert.equal(firstSkus.length, PRODUCTS_PER_PAGE);
    assert.match(first.body, new RegExp(`${total} products of many-org, archived included; 1–${PRODUCTS_PER_PAGE} on page 1 of 2`));
    assert.match(first.body, /href="\/console\/o\/many-org\/products\?page=2">Next page/);
    assert.doesNotMatch(first.body, /Previous page/);
    const second = await agent.get('/console/o/many-org/products?page=2');
    const secondSkus = skus(second.body);
    assert.equal(secondSkus.length, 30);
    assert.match(second.body, /href="\/console\/o\/many-org\/products\?page=1">Previous page/);
    assert.equal(new Set([...firstSkus, ...secondSkus]).size, total, 'every product on exactly one page');
    assert.deepEqual(skus((await agent.get('/console/o/many-org/products?page=99')).body), secondSkus, 'past the end: the last page');
    assert.deepEqual(skus((await agent.get('/console/o/many-org/products?page=x')).body), firstSkus);
  });

  it("another organisation's product answers 404 whatever the URL; a viewer cannot upload or edit", async () => {
    const h = harness();
    await h.orgs.createOrg({ slug: 'view-org' });
    await h.orgs.createOrg({ slug: 'secret-org' });
    await h.products.addProduct('view-org', 'MINE-1', { name: 'Mine' });
    await h.products.addProduct('secret-org', 'SECRET-1', { name: 'Secret thing' });
    const { agent } = await signedInAgent(h, 'view-org', 'vic@example.com', 'viewer');
    for (const url of [
      '/console/o/view-org/products/SECRET-1',
      '/console/o/secret-org/products/SECRET-1',
      '/console/o/secret-org/products',
      '/console/o/view-org/products/SECRET-1/edit',
    ]) {
      const r = await agent.get(url);
      assert.equal(r.statusCode, url.endsWith('/edit') ? 403 : 404, url);
      assert.doesNotMatch(r.body, /Secret thing/);
    }
    const mine = await agent.get('/console/o/view-org/products/MINE-1');
    assert.doesNotMatch(mine.body, /Upload an SBOM|Archive/);
    const upload = await h.app.inject({
      method: 'POST',
      url: '/console/o/view-org/products/MINE-1/sbom',
      ...withCookies(agent, multipart(agent.csrf, DROPWIZARD)),
    });
    assert.equal(upload.statusCode, 403);
    assert.equal((await agent.post('/console/o/view-org/products/MINE-1/archive', {})).statusCode, 403);
  });
});

function withCookies(agent: { cookies: Map<string, string> }, request: { payload: Buffer; headers: Record<string, string> }) {
  return { payload: request.payload, headers: { ...request.headers, cookie: [...agent.cookies].map(([k, v]) => `${k}=${v}`).join('; ') } };
}
