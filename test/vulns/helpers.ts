import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { type Harness, TEST_CONSOLE_SECRET } from '../helpers/app.js';
import { type CliResult, runCli } from '../helpers/cli.js';

// Factories for the vulnerability tests: each test builds what it reads (its own records, its
// own organisation and product) on a database of its own, so it passes alone and in any order.

/** The real feeds kept in the repository (test/fixtures/vulns/README.md). */
export const VULN_FIXTURES = fileURLToPath(new URL('../fixtures/vulns/', import.meta.url));
export const fixture = (name: string) => `${VULN_FIXTURES}${name}`;

/** Real records kept one per file (test/fixtures/vulns/records/), for a test to import what it matches. */
export const RECORDS = {
  /** gin < 1.6.0: GO-2020-0001, CVE-2020-36567, GHSA-6vm3-jj99-7229. */
  gin: 'GO-2020-0001',
  /** salt [3000, 3000.2): CVE-2020-11651, in CISA KEV. */
  salt: 'PYSEC-2020-102',
  /** salt [3000, 3000.2): CVE-2020-11652. */
  salt2: 'PYSEC-2020-103',
  /** apache-atlas, every version: CVE-2016-8752, a CVSS 3.0 vector. */
  atlas: 'PYSEC-2017-105',
} as const;

export const SALT = 'pkg:pypi/salt@3000.1';
export const GIN = 'pkg:golang/github.com/gin-gonic/gin@v1.5.0';
export const ATLAS = 'pkg:pypi/apache-atlas@0.8.0';
export const LEFTPAD = 'pkg:npm/left-pad@1.3.0';

/** cra-admin on the harness's database, in this process. */
export function cliOf(h: Harness): (...args: string[]) => Promise<CliResult> {
  return (...args) => runCli(args, { DATABASE_URL: h.config.databaseUrl, CONSOLE_SECRET: TEST_CONSOLE_SECRET });
}

/** Imports these inputs through the feeds service (what `vuln import` runs); a skipped record fails the test. */
export async function importFeeds(h: Harness, ...inputs: string[]): Promise<void> {
  const summaries = await h.vulns.importFeeds(inputs);
  const skipped = summaries.flatMap((s) => s.skipped);
  if (skipped.length) throw new Error(`skipped: ${JSON.stringify(skipped)}`);
}

/** Imports the named records of test/fixtures/vulns/records/. */
export function importRecords(h: Harness, ...ids: string[]): Promise<void> {
  return importFeeds(h, ...ids.map((id) => fixture(`records/${id}.json`)));
}

/** A CycloneDX 1.6 document listing these purls (name and version read from each). */
export function sbomOf(purls: readonly string[], release = '1.0.0') {
  return {
    bomFormat: 'CycloneDX',
    specVersion: '1.6',
    serialNumber: `urn:uuid:${randomUUID()}`,
    version: 1,
    metadata: { component: { type: 'firmware', name: 'device', version: release, 'bom-ref': 'device' } },
    components: purls.map((purl) => {
      const m = /^pkg:[^/]+\/(?:.*\/)?([^/@]+)(?:@([^?#]+))?/.exec(purl)!;
      return {
        type: 'library',
        'bom-ref': purl,
        name: decodeURIComponent(m[1]!),
        version: m[2] ? decodeURIComponent(m[2]) : undefined,
        purl,
      };
    }),
  };
}

/** Uploads an SBOM of `purls` for the product through the API; waits for its matching. */
export async function upload(h: Harness, org: string, sku: string, purls: readonly string[], release = '1.0.0') {
  const { secret: key } = await h.keys.createKey({ org, name: `pipeline-${randomUUID()}`, scopes: ['products:write'] });
  const res = await h.request({
    method: 'POST',
    url: `/api/v1/external/products/${sku}/sbom`,
    key,
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify(sbomOf(purls, release)),
  });
  if (res.statusCode !== 201) throw new Error(`upload: ${res.statusCode} ${res.body}`);
  await h.vulns.idle();
  return res.json();
}

/**
 * A product holding these purls in `release` (its SBOM uploaded through the API and matched),
 * in the organisation `org`, made with its product when they do not exist yet.
 */
export async function productWith(
  h: Harness,
  purls: readonly string[],
  { org = 'acme', sku = 'GW-1', release = '1.0.0' }: { org?: string; sku?: string; release?: string } = {},
): Promise<{ org: string; sku: string }> {
  if (!(await h.orgs.listOrgs()).some((o) => o.slug === org)) await h.orgs.createOrg({ slug: org });
  if (!(await h.products.listProducts(org)).some((p) => p.sku === sku)) await h.products.addProduct(org, sku, { name: `Product ${sku}` });
  await upload(h, org, sku, purls, release);
  return { org, sku };
}
