import { randomUUID } from 'node:crypto';
import type { Database } from '../db/index.js';
import { isUniqueViolation } from '../db/index.js';
import { isMemberState, MEMBER_STATES } from '../shared/member-states.js';
import type { ProductRow } from '../db/schema.js';
import { AppError } from '../errors.js';
import type { OrgService } from '../orgs/orgs.service.js';
import { appendRegistryEntry } from '../registry/append-entry.js';
import { SnapshotCache } from '../shared/snapshot-cache.js';
import { assertStorableText, isStorableText } from '../shared/storable-text.js';
import { iso, systemClock, type Clock } from '../shared/time.js';
import { normaliseGtin } from './gtin.js';
import { productsRepo } from './products.repo.js';
import { toProductView } from './product-views.js';
import { PRODUCT_NAME_MAX, type ProductList, type ProductView, SkuSchema } from './products.schemas.js';

export interface ProductFields {
  name?: string;
  gtin?: string | null;
  firmwareVersion?: string | null;
  endOfSupport?: Date | null;
  /** Member States where the product is made available: codes, or ['EU'] for all (art14.md). */
  markets?: string[] | null;
}

const SKU = new RegExp(SkuSchema.pattern!);

/** The GTIN's two forms: `gtin` (14 digits, for matching) and `gtin_declared` (as given, trimmed). */
function checkedGtin(gtin: string | null | undefined): Pick<ProductRow, 'gtin' | 'gtin_declared'> | undefined {
  if (gtin === undefined) return undefined;
  if (gtin === null || gtin === '') return { gtin: null, gtin_declared: null };
  const declared = gtin.trim();
  const normalised = normaliseGtin(declared);
  if (!normalised)
    throw new AppError('validation_failed', `"${gtin}" is not a valid GTIN (8, 12, 13 or 14 digits with a correct check digit)`);
  return { gtin: normalised, gtin_declared: declared };
}

/** Member State codes, or exactly EU for all of them; stored as a JSON array. */
function checkedMarkets(markets: string[] | null | undefined): string | null | undefined {
  if (markets === undefined || markets === null) return markets;
  const codes = [...new Set(markets.map((m) => m.trim().toUpperCase()).filter(Boolean))];
  if (codes.length === 0) return null;
  if (codes.includes('EU') && codes.length > 1)
    throw new AppError('validation_failed', 'markets: EU already means every Member State; give EU alone or a list of codes');
  const bad = codes.filter((c) => c !== 'EU' && !isMemberState(c));
  if (bad.length)
    throw new AppError('validation_failed', `markets: not Member States: ${bad.join(', ')} (one of ${MEMBER_STATES.join(', ')}, or EU)`);
  return JSON.stringify(codes);
}

function checkedName(name: string | undefined): string | undefined {
  if (name === undefined) return undefined;
  const trimmed = name.trim();
  if (!trimmed || trimmed.length > PRODUCT_NAME_MAX)
    throw new AppError('validation_failed', `a product name must be 1–${PRODUCT_NAME_MAX} characters`);
  return trimmed;
}

export function createProductService(database: Database, orgs: OrgService, clock: Clock = systemClock) {
  async function requireProduct(orgId: string, sku: string): Promise<ProductRow> {
    // A SKU no database could hold names no product (PostgreSQL would refuse the query).
    const product = isStorableText(sku) ? await productsRepo.findBySku(database.db, orgId, sku) : undefined;
    if (!product) throw new AppError('product_not_found', `no product with SKU "${sku}"`);
    return product;
  }

  async function writeProduct(
    actor: string,
    orgId: string,
    action: string,
    sku: string,
    details: Record<string, unknown>,
    write: (trx: Parameters<Parameters<Database['transaction']>[0]>[0]) => Promise<void>,
    at: string,
  ) {
    try {
      await database.transaction(async (trx) => {
        await write(trx);
        await appendRegistryEntry(trx, orgId, { actor, action, subject: sku, details }, at);
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new AppError('conflict', 'another product of this organisation already has that SKU or GTIN');
      throw error;
    }
  }

  /** The catalogue as the API returns it: every product, archived included, with its risk. */
  async function catalogue(orgId: string): Promise<ProductView[]> {
    return (await productsRepo.listWithCaseCounts(database.db, orgId)).map(toProductView);
  }

  // The catalogue changes only with the organisation's registry sequence number (read with the
  // key), so its body is serialised once per change and then reused.
  const catalogueBodies = new SnapshotCache<string>();

  return {
    requireProduct,

    /** The catalogue (the API's Product shape) of the organisation named by its slug. */
    async listProducts(orgSlug: string): Promise<ProductView[]> {
      return catalogue((await orgs.requireOrg(orgSlug)).id);
    },

    /**
     * The catalogue serialised by `serialize` (the route's response serializer), cached until the
     * organisation's next change: `registrySeq` is the organisation's registry sequence number.
     */
    catalogueBody(orgId: string, registrySeq: number, serialize: (list: ProductList) => string): Promise<string> {
      return catalogueBodies.get(orgId, registrySeq, async () => {
        const products = await catalogue(orgId);
        return serialize({ products, count: products.length });
      });
    },

    async addProduct(orgSlug: string, sku: string, fields: ProductFields & { name: string }, actor = 'cli'): Promise<ProductRow> {
      assertStorableText({ sku, name: fields.name, gtin: fields.gtin, firmware_version: fields.firmwareVersion, markets: fields.markets });
      const org = await orgs.requireOrg(orgSlug);
      if (!SKU.test(sku)) throw new AppError('validation_failed', 'a SKU is 1–100 letters, digits, dots, dashes or underscores');
      const now = iso(clock());
      const row: ProductRow = {
        id: randomUUID(),
        org_id: org.id,
        sku,
        name: checkedName(fields.name)!,
        ...(checkedGtin(fields.gtin) ?? { gtin: null, gtin_declared: null }),
        firmware_version: fields.firmwareVersion?.trim() || null,
        end_of_support: fields.endOfSupport ? iso(fields.endOfSupport) : null,
        status: 'active',
        sbom_status: 'none',
        sbom_components: 0,
        created_at: now,
        updated_at: now,
        markets: checkedMarkets(fields.markets) ?? null,
      };
      const { id: _id, org_id: _org, ...details } = row;
      await writeProduct(actor, org.id, 'product.added', sku, details, (trx) => productsRepo.insert(trx, row), now);
      return row;
    },

    async updateProduct(orgSlug: string, sku: string, fields: ProductFields, actor = 'cli'): Promise<ProductRow> {
      assertStorableText({ name: fields.name, gtin: fields.gtin, firmware_version: fields.firmwareVersion, markets: fields.markets });
      const org = await orgs.requireOrg(orgSlug);
      const product = await requireProduct(org.id, sku);
      const now = iso(clock());
      const change: Partial<ProductRow> = {};
      if (fields.name !== undefined) change.name = checkedName(fields.name)!;
      Object.assign(change, checkedGtin(fields.gtin));
      if (fields.firmwareVersion !== undefined) change.firmware_version = fields.firmwareVersion?.trim() || null;
      if (fields.endOfSupport !== undefined) change.end_of_support = fields.endOfSupport ? iso(fields.endOfSupport) : null;
      if (fields.markets !== undefined) change.markets = checkedMarkets(fields.markets) ?? null;
      if (Object.keys(change).length === 0) throw new AppError('validation_failed', 'nothing to update');
      await writeProduct(
        actor,
        org.id,
        'product.updated',
        sku,
        change,
        (trx) => productsRepo.update(trx, product.id, { ...change, updated_at: now }),
        now,
      );
      return { ...product, ...change, updated_at: now };
    },

    async archiveProduct(orgSlug: string, sku: string, actor = 'cli'): Promise<ProductRow> {
      const org = await orgs.requireOrg(orgSlug);
      const product = await requireProduct(org.id, sku);
      if (product.status === 'archived') return product;
      const now = iso(clock());
      await writeProduct(
        actor,
        org.id,
        'product.archived',
        sku,
        {},
        (trx) => productsRepo.update(trx, product.id, { status: 'archived', updated_at: now }),
        now,
      );
      return { ...product, status: 'archived', updated_at: now };
    },
  };
}

export type ProductService = ReturnType<typeof createProductService>;
