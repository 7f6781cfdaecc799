import { Command, InvalidArgumentError, Option } from 'commander';
import { AppError } from '../../errors.js';
import { ANALYSIS_STATES, type AnalysisState, JUSTIFICATIONS, RESPONSES } from '../../vulns/vulns.schemas.js';
import { action, timestampOption } from '../context.js';
import { inOptionWords } from '../option-words.js';
import { table } from '../output.js';

/**
 * The analysis rules that span two options, in this command's words, by the field the service
 * says each concerns (the choices of --state, --justification and --response are this
 * command's own to check, before the service is asked).
 */
const ANALYSE_RULES: Readonly<Record<string, string>> = {
  sku: 'give either --sku or --all-products',
  justification: 'a justification says why a product is not_affected: give it with --state not_affected',
  until: '--until bounds a rule for later findings: give it with --future',
};

/** The console pages at most this many findings at once; so does `finding list --limit`. */
const PAGE_MAX = 500;

interface ListOptions {
  org: string;
  sku?: string;
  vuln?: string;
  exploited?: boolean;
  state?: string;
  conditional?: boolean;
  limit?: number;
  offset: number;
}

function pageSize(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > PAGE_MAX) throw new InvalidArgumentError(`expected a whole number from 1 to ${PAGE_MAX}`);
  return n;
}

function offset(value: string): number {
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) throw new InvalidArgumentError('expected a whole number, 0 or more');
  return Number(value);
}

export function findingCommand(): Command {
  const finding = new Command('finding').description('which products carry a known vulnerability, and their analysis');
  finding
    .command('list')
    .description("the organisation's findings, exploited first, then by CVSS and EPSS")
    .requiredOption('--org <slug>', 'organisation')
    .option('--sku <sku>', 'one product')
    .option('--vuln <id>', 'one vulnerability (any id or alias)')
    .option('--exploited', 'only those in CISA KEV or EU KEV')
    .addOption(new Option('--state <state>', 'only this analysis state').choices([...ANALYSIS_STATES]))
    .option('--conditional', 'only the conditional findings (a term nothing in the revision decides), left out otherwise')
    .option('--limit <n>', `one page of at most n findings (1–${PAGE_MAX}), in the order of the console's Vulnerabilities page`, pageSize)
    .option('--offset <n>', 'with --limit: skip the first n', offset, 0)
    .action(
      action(async (ctx, opts: ListOptions) => {
        if (opts.limit === undefined && opts.offset !== 0) throw new AppError('validation_failed', '--offset needs --limit');
        const filter = {
          sku: opts.sku,
          vuln: opts.vuln,
          exploited: opts.exploited || undefined,
          state: opts.state as AnalysisState | undefined,
          conditional: opts.conditional || undefined,
        };
        // The whole list (the spec's shape, for exports and scripts), or one page of it.
        const page = opts.limit === undefined ? undefined : { offset: opts.offset, limit: opts.limit };
        const list = await ctx.vulns.listFindings(opts.org, filter, page);
        const rows = list.findings.map((f) => ({
          vulnerability: f.vulnerability,
          exploited: f.exploited.cisa_kev || f.exploited.eu_kev || f.exploited.euvd ? 'yes' : '',
          cvss: f.cvss?.score ?? null,
          epss: f.epss?.score ?? null,
          sku: f.product_sku,
          releases: f.releases,
          component: `${f.component.name}${f.component.version ? ` ${f.component.version}` : ''}`,
          fixed: f.fixed_versions,
          state: f.state,
          condition: f.match?.condition ?? null,
        }));
        const columns = ['vulnerability', 'exploited', 'cvss', 'epss', 'sku', 'releases', 'component', 'fixed', 'state'];
        return {
          json: list,
          text: table(rows, opts.conditional ? [...columns, 'condition'] : columns),
        };
      }),
    );
  finding
    .command('analyse')
    .description('record the analysis of a vulnerability on a product (or all products that have it); a registry entry each')
    .requiredOption('--org <slug>', 'organisation')
    .option('--sku <sku>', 'the product')
    .option('--all-products', 'every product of the organisation that has the finding')
    .requiredOption('--vuln <id>', 'the vulnerability (any id or alias)')
    .addOption(new Option('--state <state>', 'CycloneDX analysis state').choices([...ANALYSIS_STATES]).makeOptionMandatory())
    .addOption(new Option('--justification <j>', 'why not_affected').choices([...JUSTIFICATIONS]))
    .option(`--response <r>`, `a response, repeated for several: ${RESPONSES.join(', ')}`, (value: string, previous: string[] = []) => {
      if (!(RESPONSES as readonly string[]).includes(value)) throw new InvalidArgumentError(`Allowed choices are ${RESPONSES.join(', ')}.`);
      return [...previous, value];
    })
    .option('--detail <text>', 'the analysis in words')
    .option('--future', 'also for findings of this vulnerability (and component) that appear later')
    .option('--until <timestamp>', 'with --future: the rule ends then (RFC 3339)', timestampOption)
    .action(
      action(
        async (
          ctx,
          opts: {
            org: string;
            sku?: string;
            allProducts?: boolean;
            vuln: string;
            state: string;
            justification?: string;
            response?: string[];
            detail?: string;
            future?: boolean;
            until?: Date;
          },
        ) => {
          const result = await ctx.vulns.analyse({ ...opts, responses: opts.response, actor: 'cli' }).catch((error: unknown) => {
            throw inOptionWords(error, ANALYSE_RULES);
          });
          const rule = result.rule ? `; rule ${result.rule} for later findings` : '';
          return {
            json: result,
            text: `${result.vulnerability} analysed as ${opts.state} on ${result.products.join(', ') || 'no product yet'}${rule}`,
          };
        },
      ),
    );
  finding
    .command('coverage')
    .description("components of each product's latest revisions that can be matched, and why the others cannot")
    .requiredOption('--org <slug>', 'organisation')
    .option('--sku <sku>', 'one product')
    .action(
      action(async (ctx, opts: { org: string; sku?: string }) => {
        const coverage = await ctx.vulns.coverage(opts.org, opts.sku);
        const rows = coverage.map((c) => ({
          sku: c.sku,
          components: c.components,
          matchable: c.matchable,
          by_purl: c.matchable_by.purl,
          by_cpe: c.matchable_by.cpe,
          ...c.not_matchable,
          // the part of no_identifier with candidate CPEs, shown beside it
          no_identifier: `${c.not_matchable.no_identifier} (${c.not_matchable.no_identifier_with_candidates} with candidates)`,
        }));
        const reasons = [
          'no_identifier',
          'cpe_invalid',
          'cpe_vendor_unknown',
          'version_missing',
          'version_unparsable',
          'ecosystem_not_covered',
        ];
        return { json: coverage, text: table(rows, ['sku', 'components', 'matchable', 'by_purl', 'by_cpe', ...reasons]) };
      }),
    );
  return finding;
}
