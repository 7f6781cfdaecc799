import { Command, Option } from 'commander';
import { FEED_KINDS, type ImportSummary } from '../../vulns/vulns.schemas.js';
import { action } from '../context.js';
import { table } from '../output.js';
import { createProgress } from '../progress.js';

function summaryLine(s: ImportSummary): string {
  const counts = `${s.records} records: ${s.new} new, ${s.changed} changed, ${s.unchanged} unchanged, ${s.withdrawn} withdrawn, ${s.skipped.length} skipped`;
  const skipped = s.skipped.slice(0, 20).map((k) => `  skipped ${'id' in k ? k.id : k.entry}: ${k.reason}`);
  if (s.skipped.length > 20) skipped.push(`  … and ${s.skipped.length - 20} more (--json lists them all)`);
  return [
    `${s.kind} from ${s.source}: ${counts}; findings ${s.findings.new} new, ${s.findings.resolved} resolved (${s.took_ms} ms)`,
    ...skipped,
  ].join('\n');
}

export function vulnCommand(): Command {
  const vuln = new Command('vuln').description('vulnerability feeds (OSV, CISA KEV, EU KEV, EPSS, NVD, EUVD) and vulnerabilities');
  vuln
    .command('import')
    .description('import feeds from files, directories or https URLs; the kind is recognised from the content')
    .argument(
      '<inputs...>',
      'OSV zip, directory or .json files; a KEV catalogue; an EPSS .csv(.gz); NVD feed files (.json, .json.gz, .zip), records or a directory of them; EUVD dumps; or their URLs',
    )
    .addOption(new Option('--kind <kind>', 'force the kind').choices([...FEED_KINDS]))
    .action(
      action(async (ctx, inputs: string[], opts: { kind?: string }) => {
        // On a terminal, and never with --json: a long import shows it is alive.
        const progress = !ctx.json && ctx.io.stderr.isTTY ? createProgress(ctx.io.stderr) : null;
        const summaries = await ctx.vulns
          .importFeeds(inputs, { kind: opts.kind, onProgress: progress ? (p) => progress.update(p) : undefined })
          .finally(() => progress?.finish());
        return { json: summaries.length === 1 ? summaries[0] : summaries, text: summaries.map(summaryLine).join('\n') };
      }),
    );
  vuln
    .command('feeds')
    .description('each feed: records held, last import, source, newest entry')
    .action(
      action(async (ctx) => {
        const feeds = await ctx.vulns.feeds();
        return { json: feeds, text: table(feeds, ['kind', 'records', 'last_import_at', 'newest', 'source']) };
      }),
    );
  vuln
    .command('show')
    .description('a vulnerability by any of its ids or aliases (CVE, GHSA, GO-, PYSEC-, EUVD-…)')
    .argument('<id>', 'an id or alias')
    .option('--org <slug>', "with the organisation's findings")
    .action(
      action(async (ctx, id: string, opts: { org?: string }) => {
        const v = await ctx.vulns.show(id, opts.org);
        const kev = [
          v.exploited.cisa_kev ? `CISA KEV since ${v.exploited.cisa_kev.date_added}` : null,
          v.exploited.eu_kev ? `EU KEV since ${v.exploited.eu_kev.date_reported}` : null,
          v.exploited.euvd ? `EUVD since ${v.exploited.euvd.date_added}` : null,
        ]
          .filter(Boolean)
          .join(', ');
        const text = [
          `${v.vulnerability}${v.summary ? `: ${v.summary}` : ''}`,
          `aliases: ${v.aliases.join(', ') || '-'}`,
          `CVSS: ${v.cvss ? `${v.cvss.score} ${v.cvss.vector}` : '-'} · EPSS: ${v.epss ? `${v.epss.score} (percentile ${v.epss.percentile})` : '-'} · exploited: ${kev || 'no'}`,
          ...v.records.map((r) => `record ${r.id}${r.withdrawn ? ` (withdrawn ${r.withdrawn})` : ''}: ${JSON.stringify(r.affected)}`),
          ...(v.findings
            ? [
                `findings: ${v.findings.length}`,
                ...v.findings.map((f) => `  ${f.product_sku} ${f.component.purl ?? f.component.name} ${f.state}`),
              ]
            : []),
        ].join('\n');
        return { json: v, text };
      }),
    );
  return vuln;
}
