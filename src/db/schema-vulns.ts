import type { Generated, Selectable } from 'kysely';

// The tables of vulnerability intelligence (migration 010, vulnerabilities.md), apart from
// schema.ts so each feature's tables read together. JSON columns hold JSON text (JSON.stringify
// of what was read or decided). Dates the feeds give (published, newest, date_added, score_date)
// are text as the feed wrote them, on both databases.

export interface VulnFeedsTable {
  /** 'osv' | 'cisa-kev' | 'eu-kev' | 'epss'. */
  kind: string;
  /** The file or URL of the last import. */
  source: string;
  last_import_at: string;
  /** The latest `published` (OSV), `dateAdded` / `dateReported` (KEV) or score date (EPSS) seen. */
  newest: string | null;
}

export interface VulnFeedSourcesTable {
  url: string;
  kind: string;
  etag: string | null;
  last_modified: string | null;
  fetched_at: string;
}

export interface VulnRecordsTable {
  id: string;
  /** The alias group: the record's one CVE, else its own id. */
  vuln_key: string;
  /** SHA-256 of the record's canonical JSON: unchanged records are skipped. */
  digest: string;
  summary: string | null;
  details: string | null;
  /** JSON array of strings. */
  aliases: string;
  /** JSON array of OSV severity objects ({type, score}). */
  severity: string;
  /** JSON array of OSV affected entries (package, ranges, versions). */
  affected: string;
  /** JSON array of OSV references ({type, url}). */
  references: string;
  published: string | null;
  modified: string | null;
  withdrawn: string | null;
  imported_at: string;
}

export interface VulnRecordPackagesTable {
  package_key: string;
  record_id: string;
}

export interface VulnAliasesTable {
  alias: string;
  record_id: string;
}

export interface KevEntriesTable {
  /** 'cisa' | 'eu'. */
  source: string;
  cve: string;
  euvd: string | null;
  date_added: string | null;
  ransomware: string | null;
  /** The catalogue's entry as published (JSON). */
  data: string;
}

export interface EpssScoresTable {
  cve: string;
  score: number;
  percentile: number;
  score_date: string | null;
}

export interface VulnerabilitiesTable {
  vuln_key: string;
  cve: string | null;
  euvd: string | null;
  summary: string | null;
  /** JSON array: every id and alias of the group's records. */
  aliases: string;
  cvss_score: number | null;
  cvss_vector: string | null;
  epss_score: number | null;
  epss_percentile: number | null;
  /** JSON: {date_added, ransomware, …} when in CISA KEV. */
  cisa_kev: string | null;
  /** JSON: {date_reported, euvd, …} when in EU KEV. */
  eu_kev: string | null;
  /** JSON: {date_added, sources, euvd} when in the EUVD's exploited list (migration 018). */
  euvd_exploited: string | null;
  exploited: number;
  updated_at: string;
}

export interface PackageVersionsTable {
  id: Generated<number>;
  package_key: string;
  version: string;
  ecosystem: string;
}

/** A component as the matcher read its purl. */
export interface ComponentPackagesTable {
  component_id: number;
  /** Null when the component cannot be matched. */
  package_version_id: number | null;
  /** 'matchable', 'version_unparsable' (matched by exact versions only), or why not: 'no_purl', 'invalid_purl', 'ecosystem_not_covered', 'no_version'. */
  status: string;
}

export interface VulnMatchesTable {
  package_version_id: number;
  record_id: string;
}

export interface FindingsTable {
  org_id: string;
  product_id: string;
  component_id: number;
  vuln_key: string;
  /** JSON array of the release versions whose latest revision holds the component. */
  releases: string;
  first_seen_at: string;
  /** When no latest revision holds it any more (upgraded away), and which revision did that. */
  gone_at: string | null;
  gone_with: string | null;
  exploited: number;
  cvss_score: number | null;
  epss_score: number | null;
  /** JSON: the evidence of a CPE match (firmware.md, the `match` object); null for a purl match (migration 018). */
  match: string | null;
  /** 1 when the finding holds only on a term nothing in the revision decides: counted apart, never a signal. */
  conditional: Generated<number>;
  /** JSON array of the feeds that name it, e.g. ["nvd","osv"]. */
  sources: Generated<string>;
}

export interface FindingAnalysesTable {
  org_id: string;
  product_id: string;
  vuln_key: string;
  state: string;
  justification: string | null;
  /** JSON array of responses. */
  responses: string;
  detail: string | null;
  updated_at: string;
  updated_by: string;
}

export interface AnalysisRulesTable {
  id: string;
  org_id: string;
  vuln_key: string;
  /** The component's purl the rule is for; null: any component. */
  purl: string | null;
  state: string;
  justification: string | null;
  responses: string;
  detail: string | null;
  until: string | null;
  created_at: string;
  created_by: string;
}

export interface ExploitedSignalsTable {
  org_id: string;
  product_id: string;
  vuln_key: string;
  signal_id: string;
  raised_at: string;
}

/** An NVD CVE record (migration 018), apart from OSV's: an OSV export holds records whose id is a CVE id too. */
export interface NvdRecordsTable {
  cve: string;
  /** SHA-256 of the record's canonical JSON: an unchanged record is skipped. */
  digest: string;
  /** The NVD's vulnStatus (Analyzed, Modified, Awaiting Analysis, Rejected …). */
  status: string | null;
  /** The English description. */
  summary: string | null;
  /** The primary CVSS v4.0 or v3.x, else the first secondary, computed from its vector; and whose it is. */
  cvss_score: number | null;
  cvss_vector: string | null;
  cvss_source: string | null;
  /** JSON array: the record's configurations as checked (src/vulns/feeds/nvd-record.ts). */
  configurations: string;
  cisa_exploit_add: string | null;
  /** JSON array of {url, source}. */
  references: string;
  published: string | null;
  modified: string | null;
  /** Set when the record is Rejected: its findings resolve. */
  withdrawn: string | null;
  imported_at: string;
}

/** vendor:product → the NVD records whose criteria name it ('*' for a criterion naming every product). */
export interface NvdRecordProductsTable {
  product_key: string;
  cve: string;
}

/** The EUVD's mapping: a CVE's EUVD id. */
export interface EuvdIdsTable {
  cve: string;
  euvd: string;
}

/** What the matcher read of a component's CPEs: 'matchable', or why not (firmware.md, Coverage). */
export interface ComponentCpeReadsTable {
  component_id: number;
  status: string;
}

/** The vendor:product pairs a component is matched under. */
export interface ComponentCpeKeysTable {
  product_key: string;
  component_id: number;
}

/** A CPE a person confirmed for a component name, organisation-wide. */
export interface CpeMappingsTable {
  org_id: string;
  /** The component name as normalised for candidates. */
  name: string;
  cpe: string;
  created_at: string;
  created_by: string;
}

export interface VulnTables {
  vuln_feeds: VulnFeedsTable;
  vuln_feed_sources: VulnFeedSourcesTable;
  vuln_records: VulnRecordsTable;
  vuln_record_packages: VulnRecordPackagesTable;
  vuln_aliases: VulnAliasesTable;
  kev_entries: KevEntriesTable;
  epss_scores: EpssScoresTable;
  vulnerabilities: VulnerabilitiesTable;
  package_versions: PackageVersionsTable;
  component_packages: ComponentPackagesTable;
  vuln_matches: VulnMatchesTable;
  findings: FindingsTable;
  finding_analyses: FindingAnalysesTable;
  analysis_rules: AnalysisRulesTable;
  exploited_signals: ExploitedSignalsTable;
  nvd_records: NvdRecordsTable;
  nvd_record_products: NvdRecordProductsTable;
  euvd_ids: EuvdIdsTable;
  component_cpe_reads: ComponentCpeReadsTable;
  component_cpe_keys: ComponentCpeKeysTable;
  cpe_mappings: CpeMappingsTable;
}

export type VulnRecordRow = Selectable<VulnRecordsTable>;
export type VulnerabilityRow = Selectable<VulnerabilitiesTable>;
export type FindingRow = Selectable<FindingsTable>;
