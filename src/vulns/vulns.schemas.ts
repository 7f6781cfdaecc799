import { type Static, Type } from '@sinclair/typebox';

// The shapes vulnerability intelligence answers with (cra-admin --json, the console), declared
// once: the CycloneDX VEX vocabulary of analyses, a finding, a vulnerability, coverage.

/** CycloneDX impact analysis states. */
export const ANALYSIS_STATES = ['in_triage', 'exploitable', 'resolved', 'false_positive', 'not_affected'] as const;
export type AnalysisState = (typeof ANALYSIS_STATES)[number];
/** CycloneDX impact analysis justifications (of a not_affected state). */
export const JUSTIFICATIONS = [
  'code_not_present',
  'code_not_reachable',
  'requires_configuration',
  'requires_dependency',
  'requires_environment',
  'protected_by_compiler',
  'protected_at_runtime',
  'protected_at_perimeter',
  'protected_by_mitigating_control',
] as const;
/** CycloneDX impact analysis responses. */
export const RESPONSES = ['can_not_fix', 'will_not_fix', 'update', 'rollback', 'workaround_available'] as const;
/** The longest analysis detail, in characters (the console's form says so before the service does). */
export const ANALYSIS_DETAIL_MAX = 10_000;

/** The CVSS qualitative severity ratings (v3.x and v4.0 alike), and findings without a score. */
export const SEVERITY_BANDS = ['critical', 'high', 'medium', 'low', 'none', 'unscored'] as const;
export type SeverityBand = (typeof SEVERITY_BANDS)[number];
/** Each band's base scores, [min, below). */
export const SEVERITY_SCORES: Record<Exclude<SeverityBand, 'unscored'>, { min: number; below: number }> = {
  critical: { min: 9, below: 10.05 },
  high: { min: 7, below: 9 },
  medium: { min: 4, below: 7 },
  low: { min: 0.1, below: 4 },
  none: { min: 0, below: 0.1 },
};
/** The rating of a base score. */
export function severityOf(score: number | null): SeverityBand {
  if (score === null) return 'unscored';
  return (Object.keys(SEVERITY_SCORES) as Array<keyof typeof SEVERITY_SCORES>).find((band) => score >= SEVERITY_SCORES[band].min) ?? 'none';
}

/**
 * What a page of findings keeps: a product (and one of its releases), exploited or not, a
 * severity band, an analysis state or `open` (in triage or exploitable: still to act on), and
 * only products on the market.
 */
export interface FindingsFilter {
  sku?: string;
  /** Any id or alias of one vulnerability. */
  vuln?: string;
  release?: string;
  exploited?: boolean;
  severity?: SeverityBand;
  state?: AnalysisState | 'open';
  onMarket?: boolean;
  /** Only the conditional findings (firmware.md); without it they are left out. */
  conditional?: boolean;
}

const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

export const CvssSchema = Type.Object({ score: Type.Number({ minimum: 0, maximum: 10 }), vector: Type.String() });
export const EpssSchema = Type.Object({
  score: Type.Number({ minimum: 0, maximum: 1 }),
  percentile: Type.Number({ minimum: 0, maximum: 1 }),
});
export const ExploitedSchema = Type.Object({
  cisa_kev: nullable(
    Type.Object({
      date_added: nullable(Type.String()),
      ransomware: nullable(Type.String()),
      cve: Type.String(),
      source: Type.Optional(Type.Literal('nvd', { description: "From the NVD record's cisaExploitAdd, CISA's catalogue not imported" })),
    }),
  ),
  eu_kev: nullable(Type.Object({ date_reported: nullable(Type.String()), euvd: nullable(Type.String()), cve: Type.String() })),
  euvd: Type.Optional(
    nullable(
      Type.Object({
        date_added: nullable(Type.String()),
        sources: Type.Array(Type.String(), { description: "The EUVD exploited list's sources, as given" }),
        euvd: nullable(Type.String()),
        cve: Type.String(),
      }),
    ),
  ),
});

/** Why a finding made from a CPE exists (firmware.md; src/vulns/match/cpe/evidence.ts). */
export const MatchSchema = Type.Object({
  cpe: Type.String(),
  cpe_source: Type.Union([Type.Literal('sbom'), Type.Literal('vendor_table'), Type.Literal('mapping')]),
  criteria: Type.String(),
  match_criteria_id: nullable(Type.String()),
  range: nullable(
    Type.Object({
      start_including: Type.Optional(Type.String()),
      start_excluding: Type.Optional(Type.String()),
      end_including: Type.Optional(Type.String()),
      end_excluding: Type.Optional(Type.String()),
    }),
  ),
  comparison: Type.Object({
    version: nullable(Type.String()),
    version_from: nullable(Type.Union([Type.Literal('cpe'), Type.Literal('sbom')])),
    sbom_version: nullable(Type.String()),
    compared_as: nullable(Type.String()),
    stripped: Type.Array(Type.String()),
    order: nullable(Type.Union([Type.Literal('upstream'), Type.Literal('literal')])),
    checks: Type.Array(
      Type.Object({
        op: Type.Union(['>=', '>', '<=', '<', '=', 'release'].map((op) => Type.Literal(op))),
        against: Type.String(),
        holds: Type.Boolean(),
      }),
    ),
  }),
  confidence: Type.Union([Type.Literal('exact'), Type.Literal('inferred'), Type.Literal('confirmed')]),
  unbounded: Type.Boolean(),
  conditional: Type.Boolean(),
  condition: nullable(Type.String()),
});

export const FindingSchema = Type.Object({
  vulnerability: Type.String({ description: 'The alias group: its CVE, else the record id' }),
  aliases: Type.Array(Type.String()),
  cve: nullable(Type.String()),
  euvd: nullable(Type.String()),
  summary: nullable(Type.String()),
  product_sku: Type.String(),
  releases: Type.Array(Type.String()),
  component: Type.Object({ name: Type.String(), version: nullable(Type.String()), purl: nullable(Type.String()) }),
  fixed_versions: Type.Array(Type.String()),
  cvss: nullable(CvssSchema),
  epss: nullable(EpssSchema),
  exploited: ExploitedSchema,
  state: Type.Union(ANALYSIS_STATES.map((s) => Type.Literal(s))),
  justification: nullable(Type.String()),
  responses: Type.Array(Type.String()),
  detail: nullable(Type.String()),
  /** Who set the analysis: a person's actor (`cli`, `api:<key>`, a console user), `rule:<id>`, or the build (`build:…`); null when none. */
  analysed_by: nullable(Type.String()),
  first_seen_at: Type.String({ format: 'date-time' }),
  sources: Type.Array(Type.String(), { description: 'The feeds that found it: "nvd" (by CPE), "osv" (by purl)' }),
  match: nullable(MatchSchema),
});
export type FindingView = Static<typeof FindingSchema>;

export interface VulnerabilityView {
  vulnerability: string;
  aliases: string[];
  cve: string | null;
  euvd: string | null;
  summary: string | null;
  cvss: { score: number; vector: string } | null;
  epss: { score: number; percentile: number } | null;
  exploited: FindingView['exploited'];
  records: Array<{ id: string; published: string | null; modified: string | null; withdrawn: string | null; affected: unknown[] }>;
  findings?: FindingView[];
}

export interface CoverageView {
  sku: string;
  components: number;
  /** Matchable in some way; `matchable_by` counts each way (a component with both counts in both). */
  matchable: number;
  matchable_by: { purl: number; cpe: number };
  not_matchable: {
    /** Neither purl nor CPE (nor a confirmed mapping); `no_identifier_with_candidates` is the part of them with candidate CPEs. */
    no_identifier: number;
    no_identifier_with_candidates: number;
    cpe_invalid: number;
    cpe_vendor_unknown: number;
    version_missing: number;
    version_unparsable: number;
    ecosystem_not_covered: number;
  };
}

/** The kinds of feed imported (vulnerabilities.md, Feeds). */
export const FEED_KINDS = ['osv', 'cisa-kev', 'eu-kev', 'epss', 'nvd', 'euvd'] as const;
export type FeedKind = (typeof FEED_KINDS)[number];

export function isFeedKind(value: string): value is FeedKind {
  return (FEED_KINDS as readonly string[]).includes(value);
}

export type Skipped = { id: string; reason: string } | { entry: string; reason: string };

/** How far an import has got (a terminal's progress line): records read, and how much of the input's size, when known. */
export interface ImportProgress {
  source: string;
  records: number;
  /** How much of `size` is read (bytes, files or records, as the input counts); null: unknown. */
  done: number | null;
  size: number | null;
}

/** What one input's import did (`vuln import --json`). */
export interface ImportSummary {
  kind: FeedKind;
  source: string;
  records: number;
  new: number;
  changed: number;
  unchanged: number;
  withdrawn: number;
  /** Records not stored, each named by its id when it has one, else by its entry, with why. */
  skipped: Skipped[];
  findings: { new: number; resolved: number };
  took_ms: number;
}
