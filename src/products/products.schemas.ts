import { Type, type Static } from '@sinclair/typebox';
import { SbomFormatSchema } from '../shared/sbom-format.js';

const nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

/** From the product's open cases (risk.ts). */
export const RiskLevelSchema = Type.Union([Type.Literal('low'), Type.Literal('medium'), Type.Literal('high')], {
  description: 'high: an open notifiable case on the product; medium: an open case; low: none',
});
export type RiskLevel = Static<typeof RiskLevelSchema>;

/** What a new product's SKU may be: the service checks it, the console's form says it first. */
export const SkuSchema = Type.String({ pattern: '^[A-Za-z0-9._-]{1,100}$' });
/** A product's name, trimmed: 1 to 200 characters. */
export const PRODUCT_NAME_MAX = 200;

export const ProductSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    sku: Type.String({ description: "The organisation's stock-keeping unit; unique per organisation" }),
    gtin: nullable(
      Type.String({
        description: 'GTIN exactly as declared (GTIN-8, -12, -13 or -14); matched in its 14-digit form; null when the product has none',
      }),
    ),
    firmware_version: nullable(Type.String({ description: 'Current firmware version; null when not declared' })),
    end_of_support: nullable(
      Type.String({ format: 'date-time', description: 'Declared end of support (CRA Art. 13); null when not declared' }),
    ),
    sbom_components: Type.Integer({ minimum: 0, description: 'Components listed by the most recently ingested SBOM (0 without one)' }),
    sbom_status: Type.Union([Type.Literal('none'), ...SbomFormatSchema.anyOf], {
      description: 'Format of the most recently ingested SBOM',
    }),
    status: Type.Union([Type.Literal('active'), Type.Literal('archived')]),
    risk_level: RiskLevelSchema,
  },
  { $id: 'Product', title: 'Product', additionalProperties: false },
);

/** The API's Product (api-v1 §2), as its schema defines it. */
export type ProductView = Static<typeof ProductSchema>;

/**
 * One product as the administrator's commands print it (`cra-admin product add`, `update`,
 * `archive`): the Product's own fields (no risk level, which comes from the cases) and the
 * Member States where it is made available.
 */
export const ProductRecordSchema = Type.Composite([
  Type.Pick(ProductSchema, ['id', 'sku', 'name', 'gtin', 'firmware_version', 'end_of_support', 'status', 'sbom_status', 'sbom_components']),
  Type.Object({ markets: Type.Union([Type.Array(Type.String()), Type.Null()], { description: 'Member State codes, or ["EU"]' }) }),
]);

export type ProductRecord = Static<typeof ProductRecordSchema>;

export const ProductListSchema = Type.Object(
  {
    products: Type.Array(Type.Ref(ProductSchema)),
    count: Type.Integer({ minimum: 0 }),
  },
  { $id: 'ProductList', title: 'ProductList' },
);

export type ProductList = Static<typeof ProductListSchema>;

/** The catalogue as the OpenAPI document shows it (checked against ProductList by the OpenAPI test). */
export const PRODUCT_LIST_EXAMPLE: ProductList = {
  products: [
    {
      id: '0b7f2a56-3c1d-4e8f-9a6b-5d4c3b2a1f0e',
      name: 'Camera 1',
      sku: 'CAM-1',
      gtin: null,
      firmware_version: null,
      end_of_support: null,
      sbom_components: 0,
      sbom_status: 'none',
      status: 'archived',
      risk_level: 'low',
    },
    {
      id: '3f2c1a9e-8b7d-4e6f-a5c4-1b2d3e4f5a6b',
      name: 'Router 100',
      sku: 'RTR-100',
      gtin: '4006381333931',
      firmware_version: '2.4.1',
      end_of_support: '2030-12-31T00:00:00.000Z',
      sbom_components: 3,
      sbom_status: 'cyclonedx',
      status: 'active',
      risk_level: 'high',
    },
  ],
  count: 2,
};
