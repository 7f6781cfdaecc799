import type { ProductRow } from '../db/schema.js';
import { viewOf } from '../shared/schema-view.js';
import type { ProductWithCaseCounts } from './products.repo.js';
import { ProductRecordSchema, ProductSchema, type ProductRecord, type ProductView } from './products.schemas.js';
import { riskLevel } from './risk.js';

// A product as each door shows it, produced from the schemas: the API's Product (the catalogue:
// API, console, `cra-admin product list`) and the administrator's record of one product.

/** The API's Product (api-v1 §2): the GTIN as declared, the risk from the open cases. */
export function toProductView(p: ProductWithCaseCounts): ProductView {
  return viewOf(ProductSchema, {
    ...p,
    gtin: p.gtin_declared,
    risk_level: riskLevel(Number(p.open_cases), Number(p.open_notifiable_cases)),
  });
}

/** One product as `cra-admin product add`, `update` and `archive` print it: with its markets. */
export function toProductRecord(p: ProductRow): ProductRecord {
  return viewOf(ProductRecordSchema, {
    ...p,
    gtin: p.gtin_declared,
    markets: p.markets ? (JSON.parse(p.markets) as string[]) : null,
  });
}
