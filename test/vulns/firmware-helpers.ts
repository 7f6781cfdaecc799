import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createCpeMatcher } from '../../src/vulns/engine/cpe-matcher.js';
import { createFindingsEngine } from '../../src/vulns/engine/findings-engine.js';
import { checkedCanonical } from '../../src/vulns/feeds/json-text.js';
import { readNvdRecord } from '../../src/vulns/feeds/nvd-record.js';
import type { Harness } from '../helpers/app.js';

// Factories for the firmware tests: a product whose SBOM lists components by name and version
// (their CPEs and the device's written as the SBOM reader stores them), NVD records from the
// mirror of real ones (test/fixtures/firmware/nvd/), and the matching an NVD import runs.

const MIRROR = fileURLToPath(new URL('../fixtures/firmware/nvd/mirror/', import.meta.url));

/** A real NVD record of the mirror, by CVE id. */
export function nvdFixture(cve: string): unknown {
  const [, year, number] = /^CVE-(\d{4})-(\d+)$/.exec(cve)!;
  const dir = join(MIRROR, `CVE-${year}`, `CVE-${year}-${number!.slice(0, -2)}xx`);
  const file = readdirSync(dir).find((f) => f === `${cve}.json`);
  if (!file) throw new Error(`no mirror record ${cve}`);
  return JSON.parse(readFileSync(join(dir, file), 'utf8'));
}

/** Stores NVD records (the `cve` objects) as the NVD import keeps them. */
export async function seedNvd(h: Harness, ...records: unknown[]): Promise<void> {
  await h.database.transaction(async (db) => {
    for (const value of records) {
      const r = readNvdRecord(value, checkedCanonical(value));
      await db
        .insertInto('nvd_records')
        .values({
          cve: r.id,
          digest: r.digest,
          status: r.status,
          summary: r.summary,
          cvss_score: r.cvss?.score ?? null,
          cvss_vector: r.cvss?.vector ?? null,
          cvss_source: r.cvss?.source ?? null,
          configurations: JSON.stringify(r.configurations),
          cisa_exploit_add: r.cisaExploitAdd,
          references: JSON.stringify(r.references),
          published: r.published,
          modified: r.modified,
          withdrawn: r.withdrawn,
          imported_at: h.clock.now().toISOString(),
        })
        .execute();
      const keys = [...r.productKeys, ...(r.everyProduct ? ['*'] : [])];
      if (keys.length)
        await db
          .insertInto('nvd_record_products')
          .values(keys.map((k) => ({ product_key: k, cve: r.id })))
          .execute();
    }
  });
}

export interface FirmwareComponent {
  name: string;
  version?: string;
  purl?: string;
  /** The CPEs the SBOM gives it. */
  cpes?: string[];
}

/**
 * Uploads a CycloneDX SBOM of these components for the product (made with its organisation when
 * missing), then writes their CPEs and the device's as the SBOM reader stores them.
 */
export async function firmwareProduct(
  h: Harness,
  components: readonly FirmwareComponent[],
  { org = 'acme', sku = 'RT-1', release = '1.0.0', subject = [] as string[] } = {},
): Promise<{ org: string; sku: string; productId: string }> {
  if (!(await h.orgs.listOrgs()).some((o) => o.slug === org)) await h.orgs.createOrg({ slug: org });
  if (!(await h.products.listProducts(org)).some((p) => p.sku === sku)) await h.products.addProduct(org, sku, { name: `Router ${sku}` });
  const { secret: key } = await h.keys.createKey({ org, name: `build-${randomUUID()}`, scopes: ['products:write'] });
  const document = {
    bomFormat: 'CycloneDX',
    specVersion: '1.6',
    serialNumber: `urn:uuid:${randomUUID()}`,
    version: 1,
    metadata: { component: { type: 'device', name: sku, version: release, 'bom-ref': 'device' } },
    components: components.map((c, i) => ({ type: 'library', 'bom-ref': `c${i}`, name: c.name, version: c.version, purl: c.purl })),
  };
  const res = await h.request({
    method: 'POST',
    url: `/api/v1/external/products/${sku}/sbom`,
    key,
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify(document),
  });
  if (res.statusCode !== 201) throw new Error(`upload: ${res.statusCode} ${res.body}`);
  await h.vulns.idle();
  const { db } = h.database;
  const orgRow = await db.selectFrom('organisations').select(['id', 'number']).where('slug', '=', org).executeTakeFirstOrThrow();
  const product = await db
    .selectFrom('products')
    .select('id')
    .where('org_id', '=', orgRow.id)
    .where('sku', '=', sku)
    .executeTakeFirstOrThrow();
  await h.database.transaction(async (trx) => {
    for (const c of components)
      if (c.cpes?.length)
        await trx
          .updateTable('components')
          .set({ cpes: c.cpes.join('\n') })
          .where('org', '=', orgRow.number)
          .where('name', '=', c.name)
          .where('version', c.version === undefined ? 'is' : '=', c.version ?? null)
          .execute();
    if (subject.length)
      await trx
        .updateTable('sbom_revisions')
        .set({ subject_cpes: subject.join('\n') })
        .where('product_id', '=', product.id)
        .execute();
  });
  return { org, sku, productId: product.id };
}

/** What an NVD import runs once its records are stored: the unread components' CPEs read, then the products refreshed. */
export async function matchAfterNvdImport(h: Harness, productIds: readonly string[]) {
  const cpe = createCpeMatcher(h.database);
  await cpe.readUnread();
  return createFindingsEngine(h.database, { clock: h.clock.now, cpe }).refreshProducts(productIds);
}
