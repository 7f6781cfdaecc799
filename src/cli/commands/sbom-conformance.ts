import { Command } from 'commander';
import type { ConformanceReport } from '../../sbom/conformance/conformance.js';
import { action, revisionNumber } from '../context.js';

/** A report in lines a person reads: the verdict, the document's fields, then each component field with its count and examples. */
export function reportLines(report: ConformanceReport): string[] {
  const lines = [
    `${report.conforms ? 'conforms to' : 'does not conform to'} ${report.profile} (${report.profile_version})` +
      (report.missing_required.length > 0 ? `: missing ${report.missing_required.join(', ')}` : ''),
  ];
  for (const finding of report.findings) lines.push(`finding: ${finding}`);
  for (const field of report.document) lines.push(`${field.ok ? 'ok     ' : 'missing'} ${field.field} (${field.level})`);
  const { total, conforming } = report.components;
  lines.push(`components: ${conforming} of ${total} have every required field of their level`);
  for (const field of report.components.fields) {
    if (field.missing === 0) continue;
    lines.push(`  ${field.field} (${field.level}): missing on ${field.missing}`);
    for (const e of field.examples) lines.push(`    ${[e.name, e.version].filter(Boolean).join(' ')}: ${e.why}`);
  }
  return lines;
}

export function conformanceCommand(): Command {
  return new Command('conformance')
    .description("a revision's conformance report (TR-03183-2 or NTIA minimum elements), kept from when it was read")
    .requiredOption('--org <slug>', 'organisation')
    .requiredOption('--sku <sku>', 'product SKU')
    .option('--release <version>', 'the release (default: the one that received the latest SBOM)')
    .option('--revision <n>', 'the revision of the release (default: its latest)', revisionNumber)
    .option('--profile <id>', "bsi-tr-03183-2-v2.1 or ntia-minimum (default: the organisation's)")
    .action(
      action(async (ctx, opts: { org: string; sku: string; release?: string; revision?: number; profile?: string }) => {
        const found = await ctx.sbomConformance.report(opts.org, opts.sku, opts);
        const head = `${found.sku} release ${found.revision.release_version} revision ${found.revision.revision} (${found.revision.format} ${found.revision.spec_version}, ${found.revision.components} components)`;
        return { json: found.report, text: [head, ...reportLines(found.report)].join('\n') };
      }),
    );
}
