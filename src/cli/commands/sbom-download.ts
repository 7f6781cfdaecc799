import { Command } from 'commander';
import { action, revisionNumber } from '../context.js';

/** `sbom download`: a revision's document as received, byte for byte on stdout. */
export function sbomDownloadCommand(): Command {
  return new Command('download')
    .description(
      "write a revision's SBOM document exactly as it was received to stdout (redirect it to a file); --json prints what it is instead",
    )
    .requiredOption('--org <slug>', 'organisation')
    .requiredOption('--sku <sku>', 'product SKU')
    .option('--release <version>', 'the release (default: the one that received the latest SBOM)')
    .option('--revision <number>', 'the revision (default: the latest of the release)', revisionNumber)
    .action(
      action(async (ctx, opts: { org: string; sku: string; release?: string; revision?: number }) => {
        const { bytes, ...document } = await ctx.sbomDocuments.download(opts.org, opts.sku, {
          release: opts.release,
          revision: opts.revision,
        });
        // The bytes as received: nothing added, not even a newline.
        return { raw: bytes, json: { ...document, bytes: bytes.byteLength }, text: '' };
      }),
    );
}
