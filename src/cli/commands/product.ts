import { Command } from 'commander';
import { toProductRecord } from '../../products/product-views.js';
import { action, timestampOption } from '../context.js';
import { table } from '../output.js';

interface FieldOptions {
  org: string;
  sku: string;
  name?: string;
  gtin?: string;
  firmwareVersion?: string;
  endOfSupport?: Date;
  markets?: string[];
}

function withFieldOptions(command: Command): Command {
  return command
    .requiredOption('--org <slug>', 'organisation')
    .requiredOption('--sku <sku>', 'stock-keeping unit, unique in the organisation')
    .option('--gtin <gtin>', 'GTIN-8/12/13/14 (shown as given, matched in its 14-digit form)')
    .option('--firmware-version <version>', 'current firmware version')
    .option('--end-of-support <timestamp>', 'declared end of support (RFC 3339)', timestampOption)
    .option('--markets <codes>', 'Member States where it is made available: DE,FR or EU for all', (v: string) => v.split(','));
}

export function productCommand(): Command {
  const product = new Command('product').description('the product catalogue');
  withFieldOptions(product.command('add').description('add a product'))
    .requiredOption('--name <name>', 'product name')
    .action(
      action(async (ctx, opts: FieldOptions & { name: string }) => {
        const row = await ctx.products.addProduct(opts.org, opts.sku, {
          name: opts.name,
          gtin: opts.gtin,
          firmwareVersion: opts.firmwareVersion,
          endOfSupport: opts.endOfSupport,
          markets: opts.markets,
        });
        return { json: toProductRecord(row), text: `added product ${row.sku} (${row.id})` };
      }),
    );
  withFieldOptions(product.command('update').description("change a product's fields"))
    .option('--name <name>', 'product name')
    .action(
      action(async (ctx, opts: FieldOptions) => {
        const row = await ctx.products.updateProduct(opts.org, opts.sku, {
          name: opts.name,
          gtin: opts.gtin,
          firmwareVersion: opts.firmwareVersion,
          endOfSupport: opts.endOfSupport,
          markets: opts.markets,
        });
        return { json: toProductRecord(row), text: `updated product ${row.sku}` };
      }),
    );
  product
    .command('archive')
    .description('archive a product (it stays in the catalogue, marked archived)')
    .requiredOption('--org <slug>', 'organisation')
    .requiredOption('--sku <sku>', 'product SKU')
    .action(
      action(async (ctx, opts: { org: string; sku: string }) => {
        const row = await ctx.products.archiveProduct(opts.org, opts.sku);
        return { json: toProductRecord(row), text: `archived product ${row.sku}` };
      }),
    );
  product
    .command('list')
    .description("list an organisation's products")
    .requiredOption('--org <slug>', 'organisation')
    .action(
      action(async (ctx, opts: { org: string }) => {
        const rows = await ctx.products.listProducts(opts.org);
        return {
          json: rows,
          text: table(rows as unknown as Array<Record<string, unknown>>, [
            'sku',
            'name',
            'gtin',
            'firmware_version',
            'end_of_support',
            'status',
            'sbom_status',
            'sbom_components',
            'risk_level',
          ]),
        };
      }),
    );
  return product;
}
