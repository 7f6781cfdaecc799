import { Command, Option } from 'commander';
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
    // A usage error (exit 2), like a missing required option: found before anything is opened.
    .hook('preAction', (command) => {
      const opts = command.opts<{ purl?: string; name?: string }>();
      if (opts.purl === undefined && opts.name === undefined) command.error('error: give --purl P or --name N [--version V]');
    })
    .action(
      action(async (ctx, opts: { org: string; purl?: string; name?: string; version?: string }) => {
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
