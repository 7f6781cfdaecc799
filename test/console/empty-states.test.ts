import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { buildHarness, type Harness } from '../helpers/app.js';
import { REPO_ROOT } from '../helpers/cli.js';
import { signedInAgent } from '../helpers/console.js';

// Empty pages that teach (issue 28): on an organisation with nothing yet, Today, Products,
// Signals and API keys say what to do next with the exact command (this server's address, the
// organisation's names) or button; each lesson goes away once its step is done.

const decode = (html: string) =>
  html
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/** The text of the command block `id` on the page, as a shell would read it. */
function command(body: string, id: string): string | undefined {
  const match = new RegExp(`<pre class="command" id="${id}"[^>]*><code>([\\s\\S]*?)</code></pre>`).exec(body);
  return match ? decode(match[1]!) : undefined;
}

async function ownerOfEmptyOrg(h: Harness) {
  await h.orgs.createOrg({ slug: 'acme', name: 'Acme Devices GmbH' });
  return (await signedInAgent(h, 'acme', 'owner@example.com', 'owner')).agent;
}

describe('empty pages that teach', () => {
  it('Today lists the three first steps with their commands and buttons, each until it is done', async (t) => {
    const h = await buildHarness(t);
    const agent = await ownerOfEmptyOrg(h);
    const today = (await agent.get('/console/o/acme/today')).body;
    assert.match(today, /<h2 id="start-title">Get started<\/h2>/);
    assert.match(today, /<a class="button" href="\/console\/o\/acme\/products\/new">Add a product<\/a>/);
    assert.match(today, /<a class="button" href="\/console\/o\/acme\/keys">Create a key<\/a>/);
    assert.equal(command(today, 'step-product'), 'npx cra-admin product add --org acme --sku RTR-100 --name "Router 100"');
    assert.equal(
      command(today, 'step-key'),
      'npx cra-admin key create --org acme --name erp --scopes products:read,incidents:write,compliance:read',
    );
    assert.equal(
      command(today, 'step-sbom'),
      [
        'curl -fsS -X POST "http://localhost:80/api/v1/external/products/RTR-100/sbom" \\',
        '    -H "X-CRA-API-Key: $CI_KEY" -H "Content-Type: application/json" \\',
        '    --data-binary @bom.json',
      ].join('\n'),
    );

    await h.products.addProduct('acme', 'GW-7', { name: 'Gateway 7' }, 'cli');
    const afterProduct = (await agent.get('/console/o/acme/today')).body;
    assert.equal(command(afterProduct, 'step-product'), undefined);
    assert.match(afterProduct, /<strong>Add a product<\/strong>: <span class="ok">done<\/span>/);
    assert.match(command(afterProduct, 'step-sbom')!, /\/products\/GW-7\/sbom"/, "the organisation's own product");

    await h.keys.createKey({ org: 'acme', name: 'erp', scopes: ['products:read'] });
    assert.equal(command((await agent.get('/console/o/acme/today')).body, 'step-key'), undefined);
    const org = await h.orgs.requireOrg('acme');
    await h.sbom.ingestSbom({ orgId: org.id, sku: 'GW-7', bytes: readFileSync(`${REPO_ROOT}examples/bom.json`), actor: 'cli' });
    assert.doesNotMatch((await agent.get('/console/o/acme/today')).body, /Get started/, 'gone once every step is done');
  });

  it('Products, Signals and API keys say what to do next on an empty organisation', async (t) => {
    const h = await buildHarness(t, { PUBLIC_URL: 'https://cra.example.com' });
    const agent = await ownerOfEmptyOrg(h);
    const api = 'https://cra.example.com/api/v1/external';

    const products = (await agent.get('/console/o/acme/products')).body;
    assert.match(products, /<h2 id="empty-title">No product yet<\/h2>/);
    assert.doesNotMatch(products, /<table>/);
    assert.equal(command(products, 'step-product'), 'npx cra-admin product add --org acme --sku RTR-100 --name "Router 100"');
    assert.match(command(products, 'step-sbom')!, new RegExp(`^curl -fsS -X POST "${api}/products/RTR-100/sbom"`));

    const signals = (await agent.get('/console/o/acme/signals')).body;
    assert.match(signals, /<h2 id="empty-title">No signal yet<\/h2>/);
    assert.equal(
      command(signals, 'step-signal'),
      [
        `curl -fsS -X POST "${api}/incidents" -H "X-CRA-API-Key: $KEY" \\`,
        '    -H "Content-Type: application/json" \\',
        `    -d '{"description":"Telnet is reachable on the WAN interface","sku":"RTR-100"}'`,
      ].join('\n'),
    );

    const keys = (await agent.get('/console/o/acme/keys')).body;
    assert.match(keys, /<h2 id="empty-title">No key yet<\/h2>/);
    assert.match(keys, /<button type="submit">Create a key for your ERP system<\/button>/);
    assert.match(keys, /<button type="submit" class="secondary">Create a key for CI<\/button>/);
    assert.equal(
      command(keys, 'step-key'),
      'npx cra-admin key create --org acme --name erp --scopes products:read,incidents:write,compliance:read',
    );

    // The ERP button, as the page has it: a key with the three scopes, and the page says how to use it.
    const button = /<form method="post" action="\/console\/o\/acme\/keys">((?:(?!<\/form>)[\s\S])*?)Create a key for your ERP system/.exec(
      keys,
    )![1]!;
    const fields: Record<string, string[]> = {};
    for (const [, name, value] of button.matchAll(/<input type="hidden" name="(\w+)" value="([^"]*)">/g))
      if (name !== '_csrf') fields[name!] = [...(fields[name!] ?? []), value!];
    const created = await agent.post('/console/o/acme/keys', fields);
    assert.equal(created.statusCode, 200);
    const secret = /id="key-secret"[^>]*>(cra_[0-9A-Za-z]+)</.exec(created.body)![1]!;
    assert.deepEqual(
      (await h.keys.listKeys('acme')).map((k) => [k.name, k.scopes]),
      [['erp', ['products:read', 'incidents:write', 'compliance:read']]],
    );
    const usage = command(created.body, 'key-usage')!;
    assert.equal(usage.split('\n')[0], `export KEY='${secret}'`);
    assert.ok(usage.includes(`curl -fsS "${api}/products" -H "X-CRA-API-Key: $KEY"`), usage);
    assert.ok(usage.includes(`curl -fsS "${api}/compliance-score" -H "X-CRA-API-Key: $KEY"`), usage);
    assert.ok(usage.includes(`curl -fsS -X POST "${api}/incidents"`), usage);
    assert.doesNotMatch(usage, /sbom/, 'only what the key may do');

    await h.products.addProduct('acme', 'GW-7', { name: 'Gateway 7' }, 'cli');
    const afterwards = await Promise.all(['products', 'keys'].map(async (p) => (await agent.get(`/console/o/acme/${p}`)).body));
    for (const body of afterwards) assert.doesNotMatch(body, /empty-state/);
    assert.match(command((await agent.get('/console/o/acme/signals')).body, 'step-signal')!, /"sku":"GW-7"/);
  });

  it('shows a viewer the commands without the buttons, and never a made-up host in a command', async (t) => {
    const h = await buildHarness(t);
    await h.orgs.createOrg({ slug: 'acme' });
    const { agent } = await signedInAgent(h, 'acme', 'viewer@example.com', 'viewer');
    const today = (await agent.get('/console/o/acme/today')).body;
    assert.doesNotMatch(today, /class="button"/);
    assert.ok(command(today, 'step-product'));
    const keys = (await agent.get('/console/o/acme/keys')).body;
    assert.doesNotMatch(keys, /<form method="post" action="\/console\/o\/acme\/keys"/);

    const forged = await h.app.inject({
      method: 'GET',
      url: '/console/o/acme/signals',
      headers: { cookie: [...agent.cookies].map(([k, v]) => `${k}=${v}`).join('; '), host: 'evil$(id)' },
    });
    assert.match(command(forged.body, 'step-signal')!, /^curl -fsS -X POST "http:\/\/localhost:8080\/api\/v1\/external\/incidents"/);
    assert.doesNotMatch(forged.body, /evil/);
  });
});
