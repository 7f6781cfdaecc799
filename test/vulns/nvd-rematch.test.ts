import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it, type TestContext } from 'node:test';
import { createMatcher } from '../../src/vulns/engine/component-matcher.js';
import { createFindingsEngine } from '../../src/vulns/engine/findings-engine.js';
import { createFeedsService } from '../../src/vulns/services/feeds.service.js';
import { buildHarness, type Harness } from '../helpers/app.js';
import { importRecords, productWith, RECORDS } from './helpers.js';

// Incremental re-matching after an NVD import (firmware.md, Feeds: only new or changed records
// are matched again): the products refreshed are those whose latest revisions hold a component
// matched under one of a changed record's vendor:product keys, as it was or as it is now, and
// those with findings of its CVE; an unchanged record refreshes none. The components' keys
// (component_cpe_keys, which the CPE matcher fills) are written by the test itself.

const NVD = fileURLToPath(new URL('../fixtures/firmware/nvd/mirror/', import.meta.url));
const DNSMASQ = join(NVD, 'CVE-2021/CVE-2021-34xx/CVE-2021-3448.json');
const LIBCURL = join(NVD, 'CVE-2023/CVE-2023-385xx/CVE-2023-38546.json');
const SALT_NVD = join(NVD, 'CVE-2020/CVE-2020-116xx/CVE-2020-11652.json');

/** A feeds service over the harness's database whose engine records which products it was asked to refresh. */
function spiedFeeds(h: Harness) {
  const engine = createFindingsEngine(h.database);
  const refreshed: string[][] = [];
  const changed: string[][] = [];
  const feeds = createFeedsService(h.database, {
    matcher: createMatcher(h.database),
    findings: {
      ...engine,
      refreshProducts: async (ids: Iterable<string>) => {
        refreshed.push([...ids].sort());
        return engine.refreshProducts([]);
      },
    },
    nvdChanged: async (cves) => {
      changed.push([...cves]);
    },
  });
  return { feeds, refreshed, changed };
}

/** Product `sku` of acme holding one component `name`, matched under `productKey`; returns the product's id. */
async function productUnder(h: Harness, sku: string, name: string, productKey: string): Promise<string> {
  await productWith(h, [`pkg:generic/${name}@1.0`], { sku });
  const { db } = h.database;
  const component = await db.selectFrom('components').select('id').where('name', '=', name).executeTakeFirstOrThrow();
  await h.database.transaction((trx) =>
    trx.insertInto('component_cpe_keys').values({ product_key: productKey, component_id: component.id }).execute(),
  );
  const product = await db.selectFrom('products').select('id').where('sku', '=', sku).executeTakeFirstOrThrow();
  return product.id;
}

function scratch(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'cra-nvd-rematch-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe('re-matching after an NVD import', () => {
  it('refreshes the products holding a component under a changed record’s product keys, before and after', async (t) => {
    const h = await buildHarness(t);
    const dnsmasq = await productUnder(h, 'GW-1', 'dnsmasq', 'thekelleys:dnsmasq');
    const curl = await productUnder(h, 'GW-2', 'libcurl', 'haxx:libcurl');
    const { feeds, refreshed, changed } = spiedFeeds(h);

    await feeds.importFeeds([DNSMASQ]);
    assert.deepEqual(refreshed.pop(), [dnsmasq]);
    assert.deepEqual(changed.pop(), ['CVE-2021-3448']);
    await feeds.importFeeds([LIBCURL]);
    assert.deepEqual(refreshed.pop(), [curl]);
    assert.deepEqual(changed.pop(), ['CVE-2023-38546']);

    await feeds.importFeeds([DNSMASQ, LIBCURL]);
    assert.deepEqual(refreshed, [[], []], 'unchanged records refresh nothing');
    assert.deepEqual(changed, []);
    refreshed.length = 0;

    // The record no longer names dnsmasq: the products that held it under the old key still change.
    const dir = scratch(t);
    const record = JSON.parse(readFileSync(DNSMASQ, 'utf8'));
    record.configurations = [
      { nodes: [{ operator: 'OR', cpeMatch: [{ vulnerable: true, criteria: 'cpe:2.3:a:example:other:1.0:*:*:*:*:*:*:*' }] }] },
    ];
    writeFileSync(join(dir, 'moved.json'), JSON.stringify(record));
    await feeds.importFeeds([join(dir, 'moved.json')]);
    assert.deepEqual(refreshed.pop(), [dnsmasq]);

    // A criterion naming every vendor's product concerns every component with a CPE.
    record.configurations = [
      { nodes: [{ operator: 'OR', cpeMatch: [{ vulnerable: true, criteria: 'cpe:2.3:a:*:libcurl:1.0:*:*:*:*:*:*:*' }] }] },
    ];
    writeFileSync(join(dir, 'every.json'), JSON.stringify(record));
    await feeds.importFeeds([join(dir, 'every.json')]);
    assert.deepEqual(refreshed.pop(), [dnsmasq, curl].sort());
  });

  it('refreshes the products with findings of a changed record’s CVE', async (t) => {
    const h = await buildHarness(t);
    await importRecords(h, RECORDS.salt2);
    await productWith(h, ['pkg:pypi/salt@3000.1'], { sku: 'SALT-1' });
    await productUnder(h, 'GW-1', 'dnsmasq', 'thekelleys:dnsmasq');
    const salt = await h.database.db.selectFrom('products').select('id').where('sku', '=', 'SALT-1').executeTakeFirstOrThrow();
    const { feeds, refreshed } = spiedFeeds(h);
    await feeds.importFeeds([SALT_NVD]);
    assert.deepEqual(refreshed.pop(), [salt.id]);
  });
});
