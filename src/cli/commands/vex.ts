import { readFile, writeFile } from 'node:fs/promises';
import { Command, Option } from 'commander';
import { AppError } from '../../errors.js';
import { parseJsonText, FeedRecordError } from '../../vulns/feeds/json-text.js';
import { VEX_FORMATS } from '../../vulns/vex/export.js';
import { action } from '../context.js';

/** The largest VEX document read (a statement per finding of a large portfolio). */
const MAX_VEX_BYTES = 64 * 1024 * 1024;

export function vexCommand(): Command {
  const vex = new Command('vex').description('VEX documents out (CycloneDX 1.6, CSAF 2.0 csaf_vex, OpenVEX 0.2) and in');
  vex
    .command('export')
    .description('what the manufacturer says of each vulnerability found in a release of a product')
    .requiredOption('--org <slug>', 'organisation')
    .requiredOption('--sku <sku>', 'product SKU')
    .option('--release <version>', 'the release (default: the one that received the latest SBOM)')
    .addOption(new Option('--format <format>', 'the document format').choices([...VEX_FORMATS]).makeOptionMandatory())
    .option('--output <file>', 'write the document there instead of stdout')
    .action(
      action(async (ctx, opts: { org: string; sku: string; release?: string; format: string; output?: string }) => {
        const doc = await ctx.vulns.vexExport(opts.org, opts.sku, opts.format, opts.release);
        const body = JSON.stringify(doc, null, 2);
        if (opts.output === undefined) return { json: doc, text: body };
        await writeFile(opts.output, `${body}\n`, { mode: 0o644 });
        return { json: { written: opts.output, format: opts.format }, text: `wrote ${opts.format} VEX to ${opts.output}` };
      }),
    );
  vex
    .command('import')
    .description(
      "set analyses from a CycloneDX, CSAF or OpenVEX document, or a build's verdicts (Yocto cve-summary.json, SPDX 3 VEX); lists the statements that matched nothing",
    )
    .requiredOption('--org <slug>', 'organisation')
    .option('--sku <sku>', "the product a build's file is about (Yocto cve-summary.json, SPDX 3): required for those")
    .option('--release <version>', "the release a build's file is about (recorded with each analysis)")
    .argument('<file>', 'the VEX document')
    .action(
      action(async (ctx, file: string, opts: { org: string; sku?: string; release?: string }) => {
        const bytes = await readFile(file).catch((error: NodeJS.ErrnoException) => {
          throw new AppError('not_found', `cannot read ${file}: ${error.code ?? error.message}`);
        });
        if (bytes.length > MAX_VEX_BYTES) throw new AppError('validation_failed', `${file} is larger than ${MAX_VEX_BYTES} bytes`);
        let doc: unknown;
        try {
          doc = parseJsonText(bytes);
        } catch (error) {
          if (error instanceof FeedRecordError) throw new AppError('validation_failed', `${file} ${error.message}`);
          throw error;
        }
        const result = await ctx.vulns.vexImport(opts.org, doc, 'cli', { sku: opts.sku, release: opts.release });
        const text = [
          `${result.format}: ${result.applied} analyses applied, ${result.unmatched.length} statements matched nothing`,
          ...result.unmatched.map((u) => `  ${u.vulnerability} on ${u.product}: ${u.reason}`),
        ].join('\n');
        return { json: { applied: result.applied, unmatched: result.unmatched }, text };
      }),
    );
  return vex;
}
