import { csafProductTree, csafPublisher, csafTracking } from '../shared/csaf.js';
import type { CaseKind } from './stage-rules.js';

// 14(8): the manufacturer informs the users of the product. This builds a CSAF 2.0 document of
// the `csaf_security_advisory` profile (OASIS CSAF 2.0, §4.5) from what the case knows: the
// affected releases, the CVEs, the measures users can take and the fix once there is one.
// Pure: the caller passes the instant. Tests validate the output against the official schema
// and the mandatory tests of @secvisogram/csaf-validator-lib.

export interface AdvisoryInput {
  orgSlug: string;
  publisherName: string;
  contactEmail: string | null;
  incidentNumber: number;
  kind: CaseKind;
  title: string;
  summary: string;
  productName: string;
  versions: readonly string[];
  cves: readonly string[];
  userMeasures: string;
  fix: { availableAt: string; description: string | null } | null;
  /** When this advisory was first produced; later versions keep it. */
  initialReleaseDate: string;
  now: string;
}

export function csafAdvisory(input: AdvisoryInput): Record<string, unknown> {
  const versions = input.versions.length > 0 ? [...input.versions] : ['unversioned'];
  const products = versions.map((version, i) => ({ version, id: `CSAFPID-${String(i + 1).padStart(4, '0')}` }));
  const productIds = products.map((p) => p.id);
  const remediations: Array<Record<string, unknown>> = [{ category: 'mitigation', details: input.userMeasures, product_ids: productIds }];
  if (input.fix) {
    remediations.unshift({
      category: 'vendor_fix',
      date: input.fix.availableAt,
      details: input.fix.description || 'A corrective measure is available; see the measures users can take.',
      product_ids: productIds,
    });
  }
  const threat =
    input.kind === 'vulnerability'
      ? 'Actively exploited (notified under Article 14(1) of Regulation (EU) 2024/2847).'
      : 'Severe incident having an impact on the security of the product (notified under Article 14(3) of Regulation (EU) 2024/2847).';
  const vulnerability = (cve: string | null) => ({
    ...(cve ? { cve } : {}),
    title: input.title,
    notes: [{ category: 'description', title: 'Description', text: input.summary }],
    product_status: { known_affected: productIds },
    remediations,
    threats: [{ category: 'exploit_status', details: threat, product_ids: productIds }],
  });
  return {
    document: {
      category: 'csaf_security_advisory',
      csaf_version: '2.0',
      // The advisory is meant for every user of the product: TLP:CLEAR (WHITE in CSAF 2.0's TLP v1 labels).
      distribution: { tlp: { label: 'WHITE', url: 'https://www.first.org/tlp/' } },
      lang: 'en',
      notes: [
        { category: 'summary', title: 'Summary', text: input.summary },
        { category: 'general', title: 'Measures users can take', text: input.userMeasures },
      ],
      publisher: csafPublisher(input.orgSlug, input.publisherName, input.contactEmail),
      title: input.title,
      tracking: csafTracking(`${input.orgSlug}-case-${input.incidentNumber}`, input.initialReleaseDate, input.now),
    },
    product_tree: csafProductTree(
      input.publisherName,
      input.productName,
      products.map((p) => ({ version: p.version, product: { name: `${input.productName} ${p.version}`, product_id: p.id } })),
    ),
    vulnerabilities: input.cves.length > 0 ? input.cves.map((cve) => vulnerability(cve)) : [vulnerability(null)],
  };
}
