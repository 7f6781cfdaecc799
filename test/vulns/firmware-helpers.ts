import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Harness } from '../helpers/app.js';
import { importFeeds } from './helpers.js';

// Factories for the firmware tests: a product whose SBOM lists components by name and version
// (their CPEs and the device's written as the SBOM reader stores them), and NVD records imported
// from the mirror of real ones (test/fixtures/firmware/nvd/).

const MIRROR = fileURLToPath(new URL('../fixtures/firmware/nvd/mirror/', import.meta.url));

/** A real NVD record file of the mirror, by CVE id. */
export function nvdFile(cve: string): string {
  const [, year, number] = /^CVE-(\d{4})-(\d+)$/.exec(cve)!;
  const file = join(MIRROR, `CVE-${year}`, `CVE-${year}-${number!.slice(0, -2)}xx`, `${cve}.json`);
  if (!existsSync(file)) throw new Error(`no mirror record ${cve}`);
  return file;
}

/** Imports these mirror records as `vuln import` does (it matches and refreshes the products they concern). */
export function importNvd(h: Harness, ...cves: string[]): Promise<void> {
  return importFeeds(h, ...cves.map(nvdFile));
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
