import { caseStages, missedStages, type CaseKind, type StageFacts } from '../cases/stage-rules.js';
import type { Static } from '@sinclair/typebox';
import type { ProductView } from '../products/products.schemas.js';
import { iso } from '../shared/time.js';
import type { ActiveTimerSchema, ComplianceScoreSchema } from './compliance.schemas.js';

// The compliance indicators of decisions §3, as one pure function of the organisation's cases,
// its products and the instant of evaluation. Nothing here reads a clock or a database, so
// every rule is tested in isolation and `cra-admin score explain` prints the same breakdown.

export interface ScoreCase {
  incident_number: number;
  title: string;
  notifiable: boolean;
  status: 'open' | 'closed';
  aware_at: string;
  early_warning_deadline: string;
  full_notification_deadline: string;
  early_warning_sent_at: string | null;
  notification_sent_at: string | null;
  /** Article 14 beyond the 24 h / 72 h clocks (art14.md); absent on a case with neither. */
  kind?: CaseKind;
  fix_available_at?: string | null;
  final_filed_at?: string | null;
  intermediates?: ReadonlyArray<{ seq: number; due: string; filed_at: string | null }>;
}

export type ScoreProduct = Pick<ProductView, 'sku' | 'status' | 'sbom_status' | 'end_of_support'>;

/** A live finding of an actively exploited vulnerability (CISA KEV or EU KEV) on a product. */
export interface ScoreExploited {
  sku: string;
  vulnerability: string;
  /** Analysed as not_affected or false_positive. */
  ruled_out: boolean;
  /** A case stands for it: the signal raised for it was opened as (or merged into) a case, or a case on the product names its CVE. */
  covered_by_case: boolean;
}

/** The API's shapes, as their schemas define them. */
export type ActiveTimer = Static<typeof ActiveTimerSchema>;
export type ComplianceScore = Static<typeof ComplianceScoreSchema>;

export interface MissedDeadline {
  incident_number: number;
  deadline: 'early_warning' | 'full_notification' | 'intermediate_report' | 'final_report';
  /** Which intermediate report (1, 2, …); absent for the other deadlines. */
  seq?: number;
  due: string;
  sent_at: string | null;
}

const DEADLINE_NAMES = {
  early_warning: 'early_warning',
  notification: 'full_notification',
  intermediate: 'intermediate_report',
  final: 'final_report',
} as const;

export interface RuleResult {
  rule: 1 | 2 | 3 | 4 | 5;
  name: string;
  description: string;
  inputs: Record<string, unknown>;
  penalty: number;
}

export interface ScoreBreakdown {
  start: 100;
  rules: RuleResult[];
  total_penalty: number;
  /** 100 − total_penalty, before clamping to 0..100 and rounding. */
  unclamped: number;
  cra_health_score: number;
}

export const MTTN_THRESHOLD_SECONDS = 86_400;

const ms = (timestamp: string) => Date.parse(timestamp);

/** round(100 × active products with an SBOM / active products); 100 with no active product. */
export function sbomCoverage(products: readonly ScoreProduct[]): { percent: number; active: number; covered: number } {
  const active = products.filter((p) => p.status === 'active');
  const covered = active.filter((p) => p.sbom_status !== 'none').length;
  return { percent: active.length === 0 ? 100 : Math.round((100 * covered) / active.length), active: active.length, covered };
}

/** Mean seconds from awareness to early warning over cases that sent one, rounded; null if none. */
export function meanTimeToNotify(cases: readonly ScoreCase[]): { seconds: number | null; cases: number } {
  const sent = cases.filter((c) => c.early_warning_sent_at !== null);
  if (sent.length === 0) return { seconds: null, cases: 0 };
  const total = sent.reduce((sum, c) => sum + (ms(c.early_warning_sent_at!) - ms(c.aware_at)) / 1000, 0);
  return { seconds: Math.round(total / sent.length), cases: sent.length };
}

/** Open notifiable cases still owing the early warning or the notification, earliest first. */
export function activeTimers(cases: readonly ScoreCase[]): ActiveTimer[] {
  return cases
    .filter((c) => c.status === 'open' && c.notifiable && (c.early_warning_sent_at === null || c.notification_sent_at === null))
    .sort((a, b) => ms(a.early_warning_deadline) - ms(b.early_warning_deadline) || a.incident_number - b.incident_number)
    .map((c) => ({
      incident_number: c.incident_number,
      title: c.title,
      early_warning_deadline: c.early_warning_deadline,
      full_notification_deadline: c.full_notification_deadline,
    }));
}

function stageFactsOf(c: ScoreCase): StageFacts {
  return {
    kind: c.kind ?? 'vulnerability',
    notifiable: c.notifiable,
    early_warning_deadline: c.early_warning_deadline,
    full_notification_deadline: c.full_notification_deadline,
    early_warning_sent_at: c.early_warning_sent_at,
    notification_sent_at: c.notification_sent_at,
    fix_available_at: c.fix_available_at ?? null,
    final_filed_at: c.final_filed_at ?? null,
    intermediates: c.intermediates ?? [],
  };
}

/**
 * Deadlines of open notifiable cases that have passed (now is after them) and were not met:
 * nothing sent, or sent after the deadline. Sending exactly at the deadline meets it. Every
 * Article 14 stage counts: early warning, notification, intermediate and final reports.
 */
export function missedDeadlines(cases: readonly ScoreCase[], now: Date): MissedDeadline[] {
  const missed: MissedDeadline[] = [];
  for (const c of cases) {
    if (c.status !== 'open' || !c.notifiable) continue;
    const stages = caseStages(stageFactsOf(c), now);
    for (const s of missedStages(stages)) {
      missed.push({
        incident_number: c.incident_number,
        deadline: DEADLINE_NAMES[s.stage],
        ...(s.stage === 'intermediate' ? { seq: s.seq } : {}),
        due: s.due!,
        sent_at: s.filed_at,
      });
    }
  }
  return missed;
}

/** Exploited findings on products on the market that no analysis rules out and no case covers, one per product and vulnerability. */
export function uncoveredExploited(exploited: readonly ScoreExploited[], products: readonly ScoreProduct[], now: Date): ScoreExploited[] {
  const onMarket = new Set(
    products.filter((p) => p.status === 'active' && (p.end_of_support === null || ms(p.end_of_support) > now.getTime())).map((p) => p.sku),
  );
  const seen = new Set<string>();
  return exploited.filter((f) => {
    const key = `${f.sku}\u0000${f.vulnerability}`;
    if (!onMarket.has(f.sku) || f.ruled_out || f.covered_by_case || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * The first instant (epoch ms) at or after `now` from which computeScore's result may differ,
 * its `generated_at` aside; null when time alone never changes it. The rules read the clock only
 * to compare it with due times of open notifiable cases (a due time passes when now is after it)
 * and with products' end of support, so until the earliest of those not yet passed, the score
 * computed at `now` stands.
 */
export function scoreChangesAt(input: { cases: readonly ScoreCase[]; products: readonly ScoreProduct[]; now: Date }): number | null {
  const nowMs = input.now.getTime();
  let first: number | null = null;
  const consider = (at: number) => {
    if (at >= nowMs && (first === null || at < first)) first = at;
  };
  for (const c of input.cases) {
    if (c.status !== 'open' || !c.notifiable) continue;
    for (const s of caseStages(stageFactsOf(c), input.now)) if (s.due !== null && s.filed_at === null) consider(ms(s.due));
  }
  for (const p of input.products) if (p.status === 'active' && p.end_of_support !== null) consider(ms(p.end_of_support));
  return first;
}

export function computeScore(input: {
  cases: readonly ScoreCase[];
  products: readonly ScoreProduct[];
  exploited?: readonly ScoreExploited[];
  now: Date;
}): {
  score: ComplianceScore;
  breakdown: ScoreBreakdown;
} {
  const { cases, products, now } = input;
  const coverage = sbomCoverage(products);
  const mttn = meanTimeToNotify(cases);
  const missed = missedDeadlines(cases, now);
  const unsupported = products.filter((p) => p.status === 'active' && p.end_of_support !== null && ms(p.end_of_support) < now.getTime());
  const exploited = uncoveredExploited(input.exploited ?? [], products, now);

  const rules: RuleResult[] = [
    {
      rule: 1,
      name: 'sbom_coverage',
      description: '30 × (100 − sbom_coverage_percent) / 100',
      inputs: { sbom_coverage_percent: coverage.percent, active_products: coverage.active, active_products_with_sbom: coverage.covered },
      penalty: (30 * (100 - coverage.percent)) / 100,
    },
    {
      rule: 2,
      name: 'missed_deadlines',
      description:
        '20 per passed, unmet deadline (early warning, notification, intermediate and final report) of an open notifiable case, at most 40',
      inputs: { missed },
      penalty: Math.min(20 * missed.length, 40),
    },
    {
      rule: 3,
      name: 'end_of_support_passed',
      description: '10 per active product whose end of support has passed, at most 20',
      inputs: { products: unsupported.map((p) => ({ sku: p.sku, end_of_support: p.end_of_support })) },
      penalty: Math.min(10 * unsupported.length, 20),
    },
    {
      rule: 4,
      name: 'slow_notification',
      description: `10 when mttn_seconds > ${MTTN_THRESHOLD_SECONDS}`,
      inputs: { mttn_seconds: mttn.seconds, cases_with_early_warning: mttn.cases, threshold_seconds: MTTN_THRESHOLD_SECONDS },
      penalty: mttn.seconds !== null && mttn.seconds > MTTN_THRESHOLD_SECONDS ? 10 : 0,
    },
    {
      rule: 5,
      name: 'exploited_findings',
      description:
        '10 per actively exploited vulnerability on a product on the market, neither analysed as unaffected nor covered by a case, at most 30',
      inputs: { findings: exploited.map((f) => ({ sku: f.sku, vulnerability: f.vulnerability })) },
      penalty: Math.min(10 * exploited.length, 30),
    },
  ];
  const totalPenalty = rules.reduce((sum, r) => sum + r.penalty, 0);
  const unclamped = 100 - totalPenalty;
  const health = Math.round(Math.min(100, Math.max(0, unclamped)));

  return {
    score: {
      cra_health_score: health,
      mttn_seconds: mttn.seconds,
      sbom_coverage_percent: coverage.percent,
      open_incidents: cases.filter((c) => c.status === 'open').length,
      generated_at: iso(now),
      active_timers: activeTimers(cases),
    },
    breakdown: { start: 100, rules, total_penalty: totalPenalty, unclamped, cra_health_score: health },
  };
}
