import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  activeTimers,
  computeScore,
  meanTimeToNotify,
  missedDeadlines,
  sbomCoverage,
  scoreChangesAt,
  type ScoreCase,
  type ScoreProduct,
} from '../../src/compliance/score.js';

const H = 3_600_000;
const NOW = new Date('2026-11-22T12:00:00.000Z');
const at = (hoursFromNow: number) => new Date(NOW.getTime() + hoursFromNow * H).toISOString();

/** An open notifiable case that became aware `hoursAgo` before NOW, nothing sent yet. */
function kase(n: number, hoursAgo: number, over: Partial<ScoreCase> = {}): ScoreCase {
  return {
    incident_number: n,
    title: `case ${n}`,
    notifiable: true,
    status: 'open',
    aware_at: at(-hoursAgo),
    early_warning_deadline: at(-hoursAgo + 24),
    full_notification_deadline: at(-hoursAgo + 72),
    early_warning_sent_at: null,
    notification_sent_at: null,
    ...over,
  };
}

const product = (sku: string, over: Partial<ScoreProduct> = {}): ScoreProduct => ({
  sku,
  status: 'active',
  sbom_status: 'cyclonedx',
  end_of_support: null,
  ...over,
});
const rule = (result: ReturnType<typeof computeScore>, n: number) => result.breakdown.rules.find((r) => r.rule === n)!;

describe('score rule 1: SBOM coverage', () => {
  it('is 100 % (no penalty) when there are no active products, archived ones ignored', () => {
    const r = computeScore({ cases: [], products: [product('A', { status: 'archived', sbom_status: 'none' })], now: NOW });
    assert.equal(r.score.sbom_coverage_percent, 100);
    assert.equal(rule(r, 1).penalty, 0);
    assert.equal(r.score.cra_health_score, 100);
  });

  it('rounds the coverage and subtracts 30 × (100 − coverage) / 100', () => {
    const products = [product('A'), product('B', { sbom_status: 'spdx' }), product('C', { sbom_status: 'none' })];
    assert.deepEqual(sbomCoverage(products), { percent: 67, active: 3, covered: 2 });
    const r = computeScore({ cases: [], products, now: NOW });
    assert.equal(rule(r, 1).penalty, 9.9);
    assert.equal(r.score.cra_health_score, 90, '100 − 9.9 = 90.1 → 90');
  });

  it('takes the full 30 with no SBOM at all', () => {
    const r = computeScore({
      cases: [],
      products: [product('A', { sbom_status: 'none' }), product('B', { sbom_status: 'none' })],
      now: NOW,
    });
    assert.equal(r.score.sbom_coverage_percent, 0);
    assert.equal(r.score.cra_health_score, 70);
  });
});

describe('score rule 2: missed deadlines', () => {
  it('counts nothing before a deadline passes, nor exactly at it', () => {
    assert.deepEqual(missedDeadlines([kase(1, 23)], NOW), []);
    assert.deepEqual(missedDeadlines([kase(1, 24)], NOW), [], 'at the deadline instant it has not passed yet');
  });

  it('counts a passed early-warning deadline with nothing sent', () => {
    const missed = missedDeadlines([kase(1, 25)], NOW);
    assert.deepEqual(missed, [{ incident_number: 1, deadline: 'early_warning', due: at(-1), sent_at: null }]);
    assert.equal(computeScore({ cases: [kase(1, 25)], products: [], now: NOW }).score.cra_health_score, 80);
  });

  it('counts a deadline met late, not one met on time or exactly at the deadline', () => {
    const late = kase(1, 30, { early_warning_sent_at: at(-5) });
    const onTime = kase(2, 30, { early_warning_sent_at: at(-20) });
    const exactly = kase(3, 30, { early_warning_sent_at: at(-6) });
    const missed = missedDeadlines([late, onTime, exactly], NOW);
    assert.deepEqual(
      missed.map((m) => m.incident_number),
      [1],
    );
    assert.equal(missed[0]!.sent_at, at(-5));
  });

  it('counts both deadlines of one case, and caps the penalty at 40', () => {
    const both = kase(1, 80);
    assert.equal(missedDeadlines([both], NOW).length, 2);
    const r = computeScore({ cases: [both, kase(2, 80), kase(3, 30)], products: [], now: NOW });
    assert.equal((rule(r, 2).inputs.missed as unknown[]).length, 5);
    assert.equal(rule(r, 2).penalty, 40);
    assert.equal(r.score.cra_health_score, 60);
  });

  it('ignores closed and non-notifiable cases', () => {
    const cases = [kase(1, 80, { status: 'closed' }), kase(2, 80, { notifiable: false })];
    assert.deepEqual(missedDeadlines(cases, NOW), []);
    assert.equal(computeScore({ cases, products: [], now: NOW }).score.cra_health_score, 100);
  });
});

describe('score rule 3: end of support passed', () => {
  it('takes 10 per active product past its end of support, at most 20; archived and future ones ignored', () => {
    const one = [
      product('A', { end_of_support: at(-1) }),
      product('B', { end_of_support: at(1) }),
      product('C', { status: 'archived', end_of_support: at(-100) }),
    ];
    const r1 = computeScore({ cases: [], products: one, now: NOW });
    assert.equal(rule(r1, 3).penalty, 10);
    assert.deepEqual(rule(r1, 3).inputs.products, [{ sku: 'A', end_of_support: at(-1) }]);
    assert.equal(r1.score.cra_health_score, 90);
    const three = ['A', 'B', 'C'].map((sku) => product(sku, { end_of_support: at(-1) }));
    assert.equal(rule(computeScore({ cases: [], products: three, now: NOW }), 3).penalty, 20);
  });
});

describe('score rule 4 and mttn_seconds', () => {
  it('mttn is null without any early warning, and then no penalty', () => {
    assert.deepEqual(meanTimeToNotify([kase(1, 1)]), { seconds: null, cases: 0 });
    const r = computeScore({ cases: [kase(1, 1)], products: [], now: NOW });
    assert.equal(r.score.mttn_seconds, null);
    assert.equal(rule(r, 4).penalty, 0);
  });

  it('is the rounded mean over cases with an early warning, closed and non-notifiable included', () => {
    const a = kase(1, 100, { early_warning_sent_at: at(-90), status: 'closed' }); // 10 h
    const b = kase(2, 100, { early_warning_sent_at: new Date(Date.parse(at(-100)) + 1_500).toISOString(), notifiable: false }); // 1.5 s
    assert.deepEqual(meanTimeToNotify([a, b, kase(3, 5)]), { seconds: Math.round((36_000 + 1.5) / 2), cases: 2 });
  });

  it('takes 10 only when mttn exceeds 86 400 s', () => {
    const exactly = kase(1, 100, { status: 'closed', early_warning_sent_at: at(-76) });
    assert.equal(rule(computeScore({ cases: [exactly], products: [], now: NOW }), 4).penalty, 0);
    const over = kase(1, 100, { status: 'closed', early_warning_sent_at: new Date(Date.parse(at(-76)) + 1_000).toISOString() });
    const r = computeScore({ cases: [over], products: [], now: NOW });
    assert.equal(r.score.mttn_seconds, 86_401);
    assert.equal(rule(r, 4).penalty, 10);
    assert.equal(r.score.cra_health_score, 90);
  });
});

describe('score: totals, open incidents and timers', () => {
  it('every rule at its cap sums to exactly 100 and the score reaches 0', () => {
    const products = [
      product('A', { sbom_status: 'none', end_of_support: at(-1) }),
      product('B', { sbom_status: 'none', end_of_support: at(-1) }),
    ];
    const cases = [kase(1, 100, { early_warning_sent_at: at(-50) }), kase(2, 100)];
    const r = computeScore({ cases, products, now: NOW });
    assert.equal(r.breakdown.total_penalty, 30 + 40 + 20 + 10);
    assert.equal(r.breakdown.unclamped, 0);
    assert.equal(r.score.cra_health_score, 0);
  });

  it('open_incidents counts open cases, notifiable or not', () => {
    const r = computeScore({
      cases: [kase(1, 1), kase(2, 1, { notifiable: false }), kase(3, 1, { status: 'closed' })],
      products: [],
      now: NOW,
    });
    assert.equal(r.score.open_incidents, 2);
  });

  it('active timers: open notifiable cases still owing something, earliest early-warning deadline first', () => {
    const cases = [
      kase(1, 2),
      kase(2, 10),
      kase(3, 10, { early_warning_sent_at: at(-9) }),
      kase(4, 10, { early_warning_sent_at: at(-9), notification_sent_at: at(-8) }),
      kase(5, 30, { status: 'closed' }),
      kase(6, 30, { notifiable: false }),
    ];
    const timers = activeTimers(cases);
    assert.deepEqual(
      timers.map((t) => t.incident_number),
      [2, 3, 1],
    );
    assert.deepEqual(timers[2], {
      incident_number: 1,
      title: 'case 1',
      early_warning_deadline: at(22),
      full_notification_deadline: at(70),
    });
    assert.deepEqual(computeScore({ cases, products: [], now: NOW }).score.active_timers, timers);
  });

  it('generated_at is the evaluation instant', () => {
    assert.equal(computeScore({ cases: [], products: [], now: NOW }).score.generated_at, '2026-11-22T12:00:00.000Z');
  });
});

describe('scoreChangesAt: how long a computed score stands', () => {
  const without = (r: ReturnType<typeof computeScore>) => ({ ...r.score, generated_at: '', breakdown: r.breakdown });

  it('is the next unpassed due time or end of support, and null when time changes nothing', () => {
    assert.equal(scoreChangesAt({ cases: [], products: [product('A')], now: NOW }), null);
    assert.equal(scoreChangesAt({ cases: [kase(1, 10)], products: [], now: NOW }), NOW.getTime() + 14 * H);
    assert.equal(scoreChangesAt({ cases: [kase(1, 30)], products: [], now: NOW }), NOW.getTime() + 42 * H, 'the early warning has passed');
    assert.equal(scoreChangesAt({ cases: [kase(1, 24)], products: [], now: NOW }), NOW.getTime(), 'a due time exactly now has not passed');
    assert.equal(scoreChangesAt({ cases: [kase(1, 10, { status: 'closed' })], products: [], now: NOW }), null);
    assert.equal(scoreChangesAt({ cases: [], products: [product('A', { end_of_support: at(5) })], now: NOW }), NOW.getTime() + 5 * H);
  });

  it('holds: the score is the same at every instant before it, for random organisations', () => {
    let seed = 7;
    const rand = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const maybe = (hours: number) => (rand() < 0.5 ? null : at(hours));
    for (let run = 0; run < 300; run++) {
      const cases = Array.from({ length: 1 + Math.floor(rand() * 4) }, (_, i) =>
        kase(i + 1, Math.floor(rand() * 2_000), {
          kind: rand() < 0.5 ? 'vulnerability' : 'incident',
          early_warning_sent_at: maybe(-rand() * 50),
          notification_sent_at: maybe(-rand() * 50),
          fix_available_at: maybe(-rand() * 900),
          final_filed_at: rand() < 0.8 ? null : at(-1),
          intermediates: rand() < 0.5 ? [] : [{ seq: 1, due: at(rand() * 400 - 200), filed_at: null }],
          status: rand() < 0.9 ? 'open' : 'closed',
        }),
      );
      const products = [product('A', { end_of_support: maybe(rand() * 2_000 - 1_000) })];
      const now = new Date(NOW.getTime() + Math.floor(rand() * 100 * H));
      const first = computeScore({ cases, products, now });
      const until = scoreChangesAt({ cases, products, now });
      const probes = until === null ? [now.getTime() + 5_000 * H] : [until - 1, Math.floor((now.getTime() + until) / 2)];
      for (const t of probes.filter((p) => p >= now.getTime())) {
        assert.deepEqual(without(computeScore({ cases, products, now: new Date(t) })), without(first), `run ${run} at ${t}`);
      }
      if (until !== null) {
        // The instant it names is one where a rule's comparison turns: one millisecond on, the score differs.
        const later = computeScore({ cases, products, now: new Date(until + 1) });
        assert.notDeepEqual(without(later), without(first), `run ${run}: something changes just after ${new Date(until).toISOString()}`);
      }
    }
  });
});
