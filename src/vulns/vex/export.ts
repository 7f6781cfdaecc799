import type { AnalysisState } from '../vulns.schemas.js';
import { CSAF_GENERATOR, csafProductTree, csafPublisher, csafTracking } from '../../shared/csaf.js';
import { toVex } from './vocabulary.js';

// VEX out (vulnerabilities.md, "VEX out and in"): what the manufacturer says of each
// vulnerability found in one release of a product, as CycloneDX 1.6, CSAF 2.0 `csaf_vex` or
// OpenVEX 0.2. Pure: the caller passes the findings, the instant and the document's id. The
// product is `pkg:generic/{org}/{sku}@{release}` wherever a format needs an identifier.

export interface VexStatement {
  vulnerability: string;
  aliases: readonly string[];
  cve: string | null;
  summary: string | null;
  cvss: { score: number; vector: string } | null;
  state: AnalysisState;
  justification: string | null;
  responses: readonly string[];
  detail: string | null;
  components: ReadonlyArray<{ name: string; version: string | null; purl: string | null }>;
}

export interface VexInput {
  orgSlug: string;
  publisherName: string;
  contactEmail: string | null;
  sku: string;
  productName: string;
  release: string;
  now: string;
  /** A UUID naming this document. */
  documentId: string;
  statements: readonly VexStatement[];
}

export const VEX_FORMATS = ['cyclonedx', 'csaf', 'openvex'] as const;
export type VexFormat = (typeof VEX_FORMATS)[number];

export function productPurl(orgSlug: string, sku: string, release: string): string {
  const part = (s: string) => encodeURIComponent(s);
  return `pkg:generic/${part(orgSlug)}/${part(sku)}@${part(release)}`;
}

function cyclonedxRating(cvss: VexStatement['cvss']) {
  if (!cvss) return [];
  const method = cvss.vector.startsWith('CVSS:4.0/') ? 'CVSSv4' : cvss.vector.startsWith('CVSS:3.1/') ? 'CVSSv31' : 'CVSSv3';
  const severity = cvss.score === 0 ? 'none' : cvss.score < 4 ? 'low' : cvss.score < 7 ? 'medium' : cvss.score < 9 ? 'high' : 'critical';
  return [{ score: cvss.score, severity, method, vector: cvss.vector.replace(/^CVSS:3\.[01]\//, '') }];
}

/** CycloneDX 1.6 VEX: the vulnerabilities with their analysis, affecting the product's release. */
export function cyclonedxVex(input: VexInput): Record<string, unknown> {
  const purl = productPurl(input.orgSlug, input.sku, input.release);
  return {
    bomFormat: 'CycloneDX',
    specVersion: '1.6',
    serialNumber: `urn:uuid:${input.documentId}`,
    version: 1,
    metadata: {
      timestamp: input.now,
      tools: { components: [{ type: 'application', name: CSAF_GENERATOR.name, version: CSAF_GENERATOR.version }] },
      supplier: { name: input.publisherName },
      component: { type: 'firmware', 'bom-ref': 'product', name: input.productName, version: input.release, purl },
    },
    vulnerabilities: input.statements.map((s) => ({
      'bom-ref': `vuln-${s.vulnerability}`,
      id: s.vulnerability,
      ...(s.aliases.length ? { references: s.aliases.map((id) => ({ id, source: { name: sourceOf(id) } })) } : {}),
      ...(s.cvss ? { ratings: cyclonedxRating(s.cvss) } : {}),
      ...(s.summary ? { description: s.summary } : {}),
      analysis: {
        state: s.state,
        ...(s.state === 'not_affected' && s.justification ? { justification: s.justification } : {}),
        ...(s.responses.length ? { response: [...s.responses] } : {}),
        ...(s.detail ? { detail: s.detail } : {}),
      },
      affects: [
        {
          ref: 'product',
          versions: [
            {
              version: input.release,
              status:
                s.state === 'not_affected' || s.state === 'false_positive'
                  ? 'unaffected'
                  : s.state === 'resolved'
                    ? 'unaffected'
                    : 'affected',
            },
          ],
        },
      ],
    })),
  };
}

/** The database an id comes from, by its prefix. */
function sourceOf(id: string): string {
  const prefix = /^([A-Z]+)-/.exec(id)?.[1];
  return prefix === 'CVE' ? 'NVD' : prefix === 'GHSA' ? 'GitHub' : prefix === 'EUVD' ? 'ENISA' : prefix ? prefix : 'OSV';
}

/** OpenVEX 0.2: one statement per vulnerability, the product by its purl, the components as subcomponents. */
export function openVex(input: VexInput): Record<string, unknown> {
  const product = productPurl(input.orgSlug, input.sku, input.release);
  return {
    '@context': 'https://openvex.dev/ns/v0.2.0',
    '@id': `urn:uuid:${input.documentId}`,
    author: input.publisherName,
    timestamp: input.now,
    version: 1,
    tooling: `${CSAF_GENERATOR.name} ${CSAF_GENERATOR.version}`,
    statements: input.statements.map((s) => {
      const vex = toVex(s.state, s.justification);
      const subcomponents = s.components.filter((c) => c.purl).map((c) => ({ '@id': c.purl! }));
      return {
        vulnerability: {
          name: s.vulnerability,
          ...(s.aliases.length ? { aliases: [...s.aliases] } : {}),
          ...(s.summary ? { description: s.summary } : {}),
        },
        timestamp: input.now,
        products: [{ '@id': product, ...(subcomponents.length ? { subcomponents } : {}) }],
        status: vex.status,
        ...(vex.justification ? { justification: vex.justification } : {}),
        ...(vex.status === 'not_affected' && s.detail ? { impact_statement: s.detail } : {}),
        // OpenVEX asks an affected statement for what to do about it.
        ...(vex.status === 'affected' ? { action_statement: s.detail || actionOf(s.responses) } : {}),
        ...(vex.status !== 'not_affected' && vex.status !== 'affected' && s.detail ? { status_notes: s.detail } : {}),
      };
    }),
  };
}

function actionOf(responses: readonly string[]): string {
  if (responses.includes('update')) return 'Update to a release that no longer contains the affected component.';
  if (responses.includes('workaround_available')) return 'Apply the workaround the manufacturer publishes.';
  if (responses.includes('rollback')) return 'Roll back to a release without the affected component.';
  return 'The manufacturer is preparing a corrective measure.';
}

/** CSAF 2.0, profile `csaf_vex`: the release as one product, each vulnerability with its status. */
export function csafVex(input: VexInput): Record<string, unknown> {
  const productId = 'CSAFPID-0001';
  const vulnerabilities = input.statements.map((s) => {
    const vex = toVex(s.state, s.justification);
    const group = {
      affected: 'known_affected',
      not_affected: 'known_not_affected',
      fixed: 'fixed',
      under_investigation: 'under_investigation',
    }[vex.status];
    const ids = s.aliases.filter((a) => !/^CVE-/.test(a)).slice(0, 20);
    return {
      ...(s.cve ? { cve: s.cve } : {}),
      ...(ids.length || !s.cve
        ? { ids: (ids.length ? ids : [s.vulnerability]).map((text) => ({ system_name: sourceOf(text), text })) }
        : {}),
      notes: [{ category: 'description', title: 'Description', text: s.summary || s.vulnerability }],
      product_status: { [group]: [productId] },
      ...(vex.justification ? { flags: [{ label: vex.justification, product_ids: [productId] }] } : {}),
      ...(vex.status === 'not_affected' && s.detail
        ? { threats: [{ category: 'impact', details: s.detail, product_ids: [productId] }] }
        : {}),
      ...(vex.status === 'affected'
        ? { remediations: [{ category: remediationOf(s.responses), details: s.detail || actionOf(s.responses), product_ids: [productId] }] }
        : {}),
      ...(s.cvss && !s.cvss.vector.startsWith('CVSS:4.0/') ? { scores: [{ products: [productId], cvss_v3: cvssV3(s.cvss) }] } : {}),
    };
  });
  return {
    document: {
      category: 'csaf_vex',
      csaf_version: '2.0',
      distribution: { tlp: { label: 'WHITE', url: 'https://www.first.org/tlp/' } },
      lang: 'en',
      notes: [
        {
          category: 'summary',
          title: 'Summary',
          text: `What ${input.publisherName} says of the vulnerabilities found in ${input.productName} ${input.release}.`,
        },
      ],
      publisher: csafPublisher(input.orgSlug, input.publisherName, input.contactEmail),
      title: `VEX for ${input.productName} ${input.release}`,
      tracking: csafTracking(`${input.orgSlug}-vex-${input.documentId}`, input.now, input.now),
    },
    product_tree: csafProductTree(input.publisherName, input.productName, [
      {
        version: input.release,
        product: {
          name: `${input.productName} ${input.release}`,
          product_id: productId,
          product_identification_helper: { purl: productPurl(input.orgSlug, input.sku, input.release) },
        },
      },
    ]),
    vulnerabilities,
  };
}

function remediationOf(responses: readonly string[]): string {
  if (responses.includes('update')) return 'vendor_fix';
  if (responses.includes('workaround_available')) return 'workaround';
  if (responses.includes('will_not_fix') || responses.includes('can_not_fix')) return 'no_fix_planned';
  return 'none_available';
}

function cvssV3(cvss: { score: number; vector: string }) {
  const severity = cvss.score === 0 ? 'NONE' : cvss.score < 4 ? 'LOW' : cvss.score < 7 ? 'MEDIUM' : cvss.score < 9 ? 'HIGH' : 'CRITICAL';
  return {
    version: cvss.vector.startsWith('CVSS:3.0/') ? '3.0' : '3.1',
    vectorString: cvss.vector,
    baseScore: cvss.score,
    baseSeverity: severity,
  };
}

export function vexDocument(format: VexFormat, input: VexInput): Record<string, unknown> {
  return format === 'cyclonedx' ? cyclonedxVex(input) : format === 'csaf' ? csafVex(input) : openVex(input);
}
