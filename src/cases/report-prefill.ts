import type { CaseRow, Organisation, ProductRow } from '../db/schema.js';
import type { ReportFields } from './report-catalogue.js';

// What the platform already knows, as report field values (art14.md "Values the platform knows
// are pre-filled"). A draft's own values win over these; a filed report keeps what was filed.

export interface PrefillSources {
  org: Pick<Organisation, 'legal_name' | 'postal_address' | 'contact_email' | 'member_state'>;
  kase: Pick<CaseRow, 'kind' | 'title' | 'aware_at' | 'fix_available_at' | 'fix_description'>;
  product: Pick<ProductRow, 'name' | 'markets' | 'end_of_support' | 'firmware_version'> | null;
  /** Release versions of the product known at awareness (else all known, else the firmware version). */
  versions: readonly string[];
  signalDescription: string;
  cves: readonly string[];
  /** The exploited vulnerability the platform raised the case's signal for, if it did. */
  vulnerability?: { summary: string | null; cvss: { score: number; vector: string } | null } | null;
}

export function prefillFields(s: PrefillSources): ReportFields {
  const out: ReportFields = {
    kind: s.kase.kind,
    title: s.kase.title,
    summary: s.signalDescription.trim(),
    aware_at: s.kase.aware_at,
  };
  const set = (key: string, value: string | readonly string[] | null | undefined) => {
    if (value === null || value === undefined || value.length === 0) return;
    out[key] = typeof value === 'string' ? value : [...value];
  };
  set('manufacturer_name', s.org.legal_name);
  set('manufacturer_address', s.org.postal_address);
  set('manufacturer_contact_email', s.org.contact_email);
  set('member_state', s.org.member_state);
  if (s.product) {
    set('product_name', s.product.name);
    set('markets', s.product.markets ? (JSON.parse(s.product.markets) as string[]) : null);
    set('end_of_support', s.product.end_of_support);
  }
  set('affected_versions', s.versions);
  set('cve_ids', [...new Set(s.cves)]);
  if (s.vulnerability) {
    set('nature', s.vulnerability.summary);
    set('severity', s.vulnerability.cvss ? `CVSS ${s.vulnerability.cvss.score} (${s.vulnerability.cvss.vector})` : null);
  }
  if (s.kase.kind === 'vulnerability') {
    set('remediation_available_at', s.kase.fix_available_at);
    set('remediation', s.kase.fix_description);
  }
  return out;
}
