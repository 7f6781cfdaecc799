import { Command } from 'commander';
import type { RuleResult } from '../../compliance/score.js';
import { action } from '../context.js';

function ruleLine(r: RuleResult): string {
  return `  rule ${r.rule} ${r.name.padEnd(22)} −${String(Number(r.penalty.toFixed(2))).padEnd(6)} ${r.description}\n      inputs: ${JSON.stringify(r.inputs)}`;
}

export function scoreCommand(): Command {
  const score = new Command('score').description('the compliance score');
  score
    .command('explain')
    .description('print cra_health_score rule by rule, with the inputs each rule read')
    .requiredOption('--org <slug>', 'organisation')
    .action(
      action(async (ctx, opts: { org: string }) => {
        const { score: result, breakdown } = await ctx.compliance.explainScore(opts.org);
        const text = [
          `cra_health_score of ${opts.org}: ${result.cra_health_score} (computed ${result.generated_at})`,
          `  start                         100`,
          ...breakdown.rules.map(ruleLine),
          `  = ${Number(breakdown.unclamped.toFixed(2))}, clamped to 0..100 and rounded → ${breakdown.cra_health_score}`,
          `mttn_seconds ${result.mttn_seconds ?? 'null'} · sbom_coverage_percent ${result.sbom_coverage_percent} · open_incidents ${result.open_incidents} · active timers ${result.active_timers.length}`,
          ...result.active_timers.map(
            (t) =>
              `  #${t.incident_number} early warning due ${t.early_warning_deadline}, notification due ${t.full_notification_deadline}: ${t.title}`,
          ),
        ].join('\n');
        return { json: { score: result, breakdown }, text };
      }),
    );
  return score;
}
