import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { Harness } from '../helpers/app.js';

/** The real feeds kept in the repository (test/fixtures/vulns/README.md). */
export const VULN_FIXTURES = fileURLToPath(new URL('../fixtures/vulns/', import.meta.url));
export const fixture = (name: string) => `${VULN_FIXTURES}${name}`;

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
