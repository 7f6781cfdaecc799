import { readFile } from 'node:fs/promises';
import { Command } from 'commander';
import { AppError } from '../../errors.js';
import type { SbomIngested } from '../../sbom/sbom.schemas.js';
import { action, revisionNumber } from '../context.js';
import { sbomCheckCommand } from './sbom-check.js';
import { conformanceCommand } from './sbom-conformance.js';
import { sbomDownloadCommand } from './sbom-download.js';

export function sbomCommand(): Command {
  const sbom = new Command('sbom').description("SBOMs of the organisation's products");
  sbom
    .command('upload')
    .description('ingest an SBOM file (CycloneDX JSON 1.2–1.7, SPDX 2.2/2.3 JSON, SPDX 3.0 JSON-LD): same result and errors as the API')
    .requiredOption('--org <slug>', 'organisation')
    .requiredOption('--sku <sku>', 'product SKU')
    .argument('<file>', 'the SBOM document')
    .action(
      action(async (ctx, file: string, opts: { org: string; sku: string }) => {
        const bytes = await readFile(file).catch((error: NodeJS.ErrnoException) => {
          throw new AppError('not_found', `cannot read ${file}: ${error.code ?? error.message}`);
        });
        const {
          created,
          revision,
          sbom: body,
        } = await ctx.sbom.uploadSbom({ org: opts.org, sku: opts.sku, bytes, actor: 'cli' }).catch((error: unknown) => {
          // The API returns the failing paths as `details`; here they follow the message.
          if (error instanceof AppError && error.details?.length) {
            throw new AppError(
              error.code,
              [error.message, ...error.details.map((d) => `  ${d.path === '' ? '' : `${d.path}: `}${d.message}`)].join('\n'),
            );
          }
          throw error;
        });
        const text = created
          ? `ingested ${body.format} ${body.spec_version} SBOM for ${body.product_sku} release ${body.release_version}: revision ${revision}, ${body.components} components (sbom ${body.sbom_id})`
          : `${body.product_sku} already has this document: release ${body.release_version} revision ${revision} (sbom ${body.sbom_id}); nothing stored`;
        return { json: body, text: [text, conformanceLine(body.conformance)].filter(Boolean).join('\n') };
      }),
    );
  sbom
    .command('diff')
    .description('components added, removed and changed in version between two revisions of a release')
    .requiredOption('--org <slug>', 'organisation')
    .requiredOption('--sku <sku>', 'product SKU')
    .option('--release <version>', 'the release (default: the one that received the latest SBOM)')
    .requiredOption('--from <revision>', 'the earlier revision number', revisionNumber)
    .requiredOption('--to <revision>', 'the later revision number', revisionNumber)
    .action(
      action(async (ctx, opts: { org: string; sku: string; release?: string; from: number; to: number }) => {
        const { release_version: release, ...diff } = await ctx.portfolio.diffRevisions(opts.org, opts.sku, opts);
        const line = (sign: string, c: { name: string; version: string | null }) => `${sign} ${c.name} ${c.version ?? '(no version)'}`;
        const text = [
          `${opts.sku} release ${release}, revision ${opts.from} → ${opts.to}: ${diff.added.length} added, ${diff.removed.length} removed, ${diff.changed.length} changed`,
          ...diff.added.map((c) => line('+', c)),
          ...diff.removed.map((c) => line('-', c)),
          ...diff.changed.map((c) => `~ ${c.name} ${c.from_version ?? '(no version)'} → ${c.to_version ?? '(no version)'}`),
        ].join('\n');
        return { json: diff, text };
      }),
    );
  sbom.addCommand(sbomCheckCommand());
  sbom.addCommand(conformanceCommand());
  sbom.addCommand(sbomDownloadCommand());
  return sbom;
}

/** The upload's one line on conformance: conforms, or what is missing. */
function conformanceLine(conformance: SbomIngested['conformance']): string {
  if (!conformance) return '';
  if (conformance.conforms) return `conforms to ${conformance.profile}`;
  const missing = conformance.missing_required;
  return `does not conform to ${conformance.profile}${missing.length > 0 ? `: missing ${missing.join(', ')}` : ''} (cra-admin sbom conformance shows the report)`;
}
