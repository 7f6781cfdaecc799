import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Harness } from '../helpers/app.js';
import { importFeeds } from './helpers.js';

// Factories for the firmware tests: a product whose SBOM lists components by name and version
// and CPE (and the device's CPE), uploaded through the API, and NVD records imported from the
// mirror of real ones (test/fixtures/firmware/nvd/).

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
  /** The CPE the SBOM gives it (CycloneDX `component.cpe`). */
  cpe?: string;
}

/**
 * Uploads a CycloneDX SBOM of these components for the product through the API (made with its
 * organisation when missing), the device's CPE as `metadata.component.cpe`; waits for its matching.
 */
export async function firmwareProduct(
  h: Harness,
  components: readonly FirmwareComponent[],
  { org = 'acme', sku = 'RT-1', release = '1.0.0', subject }: { org?: string; sku?: string; release?: string; subject?: string } = {},
): Promise<{ org: string; sku: string }> {
  if (!(await h.orgs.listOrgs()).some((o) => o.slug === org)) await h.orgs.createOrg({ slug: org });
  if (!(await h.products.listProducts(org)).some((p) => p.sku === sku)) await h.products.addProduct(org, sku, { name: `Router ${sku}` });
  const { secret: key } = await h.keys.createKey({ org, name: `build-${randomUUID()}`, scopes: ['products:write'] });
  const document = {
    bomFormat: 'CycloneDX',
    specVersion: '1.6',
    serialNumber: `urn:uuid:${randomUUID()}`,
    version: 1,
    metadata: { component: { type: 'device', name: sku, version: release, 'bom-ref': 'device', cpe: subject } },
    components: components.map((c, i) => ({
      type: 'library',
      'bom-ref': `c${i}`,
      name: c.name,
      version: c.version,
      purl: c.purl,
      cpe: c.cpe,
    })),
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
  return { org, sku };
}
