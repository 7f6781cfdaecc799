import { Command } from 'commander';
import { action, revisionNumber } from '../context.js';
import { reportText } from './sbom-check.js';

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
        const { sku, revision, report } = await ctx.sbomConformance.report(opts.org, opts.sku, opts);
        const label = `${sku} release ${revision.release_version} revision ${revision.revision}`;
        const format = `${revision.format === 'cyclonedx' ? 'CycloneDX' : 'SPDX'} ${revision.spec_version}`;
        return { json: report, text: reportText(label, format, report) };
      }),
    );
}
