import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Harness } from '../helpers/app.js';

// A small portfolio with known findings for the console's vulnerability pages: advisories written
// here (OSV records, a CISA KEV catalogue and EPSS scores in their real formats) so that every
// severity band, an exploited vulnerability, a hostile summary and a hostile component name are
// present, and enough findings for three pages.

export const CRITICAL = 'CVE-2099-0001'; // left-pad < 1.3.1, CVSS 9.8, in CISA KEV
export const HIGH = 'CVE-2099-0002'; // lodash < 4.17.21, CVSS 8.1, EPSS 0.42
export const MEDIUM = 'CVE-2099-0003'; // minimist < 1.2.6, CVSS 5.3, on RTR-1 and CAM-1
export const UNSCORED = 'TEST-HOSTILE-1'; // hostile-pkg < 2.0.0, no CVSS, a hostile summary
export const LOW = 'CVE-2099-0005'; // pkg-0 … pkg-119, CVSS 2.5
export const HOSTILE_SUMMARY = '<script>alert("summary")</script> \u202Eevil summary';
export const HOSTILE_COMPONENT = '<img src=x onerror=alert(1)>\u202Ehostile component';
export const PAGE_FILLERS = 120;

const range = (fixed: string) => [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed }] }];
const npm = (name: string, fixed: string) => ({ package: { ecosystem: 'npm', name }, ranges: range(fixed) });

const RECORDS = [
  {
    id: 'TEST-CRIT-1',
    aliases: [CRITICAL],
    summary: 'Remote code execution in left-pad',
    severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' }],
    affected: [npm('left-pad', '1.3.1')],
    published: '2099-01-01T00:00:00Z',
  },
  {
    id: 'TEST-HIGH-1',
    aliases: [HIGH],
    summary: 'Prototype pollution in lodash',
    severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:H/A:H' }],
    affected: [npm('lodash', '4.17.21')],
  },
  {
    id: 'TEST-MED-1',
    aliases: [MEDIUM],
    summary: 'Prototype pollution in minimist',
    severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N' }],
    affected: [npm('minimist', '1.2.6')],
  },
  { id: UNSCORED, summary: HOSTILE_SUMMARY, affected: [npm('hostile-pkg', '2.0.0')] },
  {
    id: 'TEST-LOW-1',
    aliases: [LOW],
    summary: 'Timing side channel in the pkg family',
    severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:L/AC:H/PR:L/UI:N/S:U/C:L/I:N/A:N' }],
    affected: Array.from({ length: PAGE_FILLERS }, (_, i) => npm(`pkg-${i}`, '2.0.0')),
  },
];

/** Imports the advisories below through the feeds service, as `cra-admin vuln import` does. */
export async function importFeeds(h: Harness): Promise<void> {
  const feeds = writeFeeds();
  try {
    const summaries = await h.vulns.importFeeds([feeds.osv, feeds.kev, feeds.epss]);
    const skipped = summaries.flatMap((s) => s.skipped);
    if (skipped.length) throw new Error(`skipped: ${JSON.stringify(skipped)}`);
  } finally {
    feeds.remove();
  }
}

/** Writes the advisories into a fresh directory: OSV records, a KEV catalogue, EPSS scores. */
function writeFeeds(): { osv: string; kev: string; epss: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'cra-vuln-console-'));
  const osv = join(dir, 'osv');
  mkdirSync(osv);
  for (const record of RECORDS) writeFileSync(join(osv, `${record.id}.json`), JSON.stringify({ schema_version: '1.6.0', ...record }));
  const kev = join(dir, 'kev.json');
  writeFileSync(
    kev,
    JSON.stringify({
      title: 'CISA Catalog of Known Exploited Vulnerabilities',
      catalogVersion: '2099.01.02',
      count: 1,
      vulnerabilities: [{ cveID: CRITICAL, dateAdded: '2099-01-02', knownRansomwareCampaignUse: 'Known', vendorProject: 'left-pad' }],
    }),
  );
  const epss = join(dir, 'epss.csv');
  writeFileSync(epss, `#model_version:v2025.03.14,score_date:2026-11-21T00:00:00+0000\ncve,epss,percentile\n${HIGH},0.42000,0.97000\n`);
  return { osv, kev, epss, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A CycloneDX 1.6 document of these components. */
export function bom(release: string, components: Array<{ name: string; version?: string; purl?: string }>) {
  return {
    bomFormat: 'CycloneDX',
    specVersion: '1.6',
    serialNumber: `urn:uuid:${randomUUID()}`,
    version: 1,
    metadata: { component: { type: 'firmware', name: 'device', version: release, 'bom-ref': 'device' } },
    components: components.map((c, i) => ({ type: 'library', 'bom-ref': `c${i}`, ...c })),
  };
}

const lib = (name: string, version: string) => ({ name, version, purl: `pkg:npm/${name}@${version}` });
const fillers = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => lib(`pkg-${from + i}`, '1.0.0'));

/** Ingests an SBOM and waits for its matching. */
export async function ingest(h: Harness, org: string, sku: string, doc: unknown) {
  const { id } = await h.orgs.requireOrg(org);
  await h.sbom.ingestSbom({ orgId: id, sku, bytes: Buffer.from(JSON.stringify(doc)), actor: 'cli' });
  await h.vulns.idle();
}

/**
 * `slug` with RTR-1 (release 1.0.0: 64 findings, and a component without a purl, one of an
 * ecosystem no feed covers, one without a version), CAM-1 (off the market: 62 findings) and GW-1
 * (release 1.0.0 holds the exploited left-pad, release 2.0.0 no longer does: 1 finding), 127 in
 * all; `${slug}-other` with THEIRS, holding left-pad too.
 */
export async function vulnPortfolio(h: Harness, slug: string) {
  await h.orgs.createOrg({ slug, name: `${slug} GmbH` });
  await h.orgs.createOrg({ slug: `${slug}-other`, name: 'Other GmbH' });
  await h.products.addProduct(slug, 'RTR-1', { name: 'Router one' });
  await h.products.addProduct(slug, 'CAM-1', { name: 'Camera one', endOfSupport: new Date('2026-01-01T00:00:00Z') });
  await h.products.addProduct(slug, 'GW-1', { name: 'Gateway one' });
  await h.products.addProduct(`${slug}-other`, 'THEIRS', { name: 'Their secret device' });
  await ingest(
    h,
    slug,
    'RTR-1',
    bom('1.0.0', [
      lib('left-pad', '1.3.0'),
      lib('lodash', '4.17.20'),
      lib('minimist', '1.2.5'),
      { name: HOSTILE_COMPONENT, version: '1.0.0', purl: 'pkg:npm/hostile-pkg@1.0.0' },
      { name: 'firmware-blob', version: '3' },
      { name: 'busybox', version: '1.36.1', purl: 'pkg:generic/busybox@1.36.1' },
      { name: 'no-version', purl: 'pkg:npm/no-version' },
      ...fillers(0, 60),
    ]),
  );
  await ingest(h, slug, 'CAM-1', bom('7.0', [lib('left-pad', '1.3.0'), lib('minimist', '1.2.5'), ...fillers(60, 120)]));
  await ingest(h, slug, 'GW-1', bom('1.0.0', [lib('left-pad', '1.3.0')]));
  h.clock.advance(3_600_000);
  await ingest(h, slug, 'GW-1', bom('2.0.0', [lib('left-pad', '1.3.1')]));
  await ingest(h, `${slug}-other`, 'THEIRS', bom('9.9', [lib('left-pad', '1.3.0'), lib('minimist', '1.2.5')]));
}
