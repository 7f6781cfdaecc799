import { Command, Option } from 'commander';
import { AppError } from '../../errors.js';
import { action } from '../context.js';
import { table } from '../output.js';

export function componentCommand(): Command {
  const component = new Command('component').description("components across the organisation's SBOMs");
  component
    .command('search')
    .description('which products, releases and SBOM revisions contain a component (latest revision of each release first)')
    .requiredOption('--org <slug>', 'organisation')
    .addOption(new Option('--purl <purl>', 'the package URL, exactly as in the SBOMs').conflicts(['name', 'version']))
    .option('--name <name>', 'the component name')
    .option('--version <version>', 'with --name: only this version')
    .action(
      action(async (ctx, opts: { org: string; purl?: string; name?: string; version?: string }) => {
        if (opts.purl === undefined && opts.name === undefined)
          throw new AppError('validation_failed', 'give --purl P or --name N [--version V]');
        const match =
          opts.purl !== undefined
            ? { purl: opts.purl }
            : { name: opts.name!, ...(opts.version !== undefined ? { version: opts.version } : {}) };
        const hits = await ctx.portfolio.searchComponents(opts.org, match);
        const rows = hits.map((h) => ({
          sku: h.sku,
          release: h.release_version,
          revision: h.revision,
          name: h.component.name,
          version: h.component.version,
          purl: h.component.purl,
          sbom_id: h.sbom_id,
        }));
        return { json: hits, text: table(rows, ['sku', 'release', 'revision', 'name', 'version', 'purl', 'sbom_id']) };
      }),
    );
  return component;
}
