import { Command, Option } from 'commander';
import { action } from '../context.js';
import { table } from '../output.js';

const counted = (n: number) => `${n} component${n === 1 ? '' : 's'}`;

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
  component
    .command('candidates')
    .description('components with neither package URL nor CPE, each with candidate CPEs to confirm (map-cpe)')
    .requiredOption('--org <slug>', 'organisation')
    .option('--sku <sku>', 'one product')
    .action(
      action(async (ctx, opts: { org: string; sku?: string }) => {
        const list = await ctx.vulns.cpeCandidates(opts.org, opts.sku);
        const rows = list.map((c) => ({
          name: c.name,
          version: c.version,
          products: c.products,
          candidates: c.candidates.map((k) => `${k.cpe} (${k.confidence})`).join(', ') || '(none)',
        }));
        return { json: list, text: table(rows, ['name', 'version', 'products', 'candidates']) };
      }),
    );
  component
    .command('map-cpe')
    .description('confirm a CPE for a component name, organisation-wide (or --remove it); a registry entry each')
    .requiredOption('--org <slug>', 'organisation')
    .requiredOption('--name <name>', 'the component name (compared normalised: u-boot = u_boot)')
    .option('--cpe <cpe>', "the CPE; a version of * means the component's own")
    .option('--remove', 'undo the mapping (--cpe needed when the name has several)')
    .hook('preAction', (command) => {
      const opts = command.opts<{ cpe?: string; remove?: boolean }>();
      if (!opts.remove && opts.cpe === undefined) command.error('error: give --cpe CPE, or --remove');
    })
    .action(
      action(async (ctx, opts: { org: string; name: string; cpe?: string; remove?: boolean }) => {
        if (opts.remove) {
          const done = await ctx.vulns.unmapCpe({ org: opts.org, name: opts.name, cpe: opts.cpe, actor: 'cli' });
          return { json: done, text: `${done.cpe} no longer mapped to ${done.name}; ${counted(done.components)} matched again` };
        }
        const done = await ctx.vulns.mapCpe({ org: opts.org, name: opts.name, cpe: opts.cpe!, actor: 'cli' });
        const text = done.added
          ? `${done.cpe} mapped to ${done.name}; ${counted(done.components)} matched again`
          : `${done.cpe} was already mapped to ${done.name}`;
        return { json: done, text };
      }),
    );
  return component;
}
