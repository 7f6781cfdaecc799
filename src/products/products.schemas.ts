import { Type, type Static } from '@sinclair/typebox';

const nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

export const ProductSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    sku: Type.String({ description: "The organisation's stock-keeping unit; unique per organisation" }),
    gtin: nullable(Type.String({ description: 'GTIN exactly as declared (GTIN-8, -12, -13 or -14); matched in its 14-digit form; null when the product has none' })),
    firmware_version: nullable(Type.String({ description: 'Current firmware version; null when not declared' })),
    end_of_support: nullable(Type.String({ format: 'date-time', description: 'Declared end of support (CRA Art. 13); null when not declared' })),
    sbom_components: Type.Integer({ minimum: 0, description: 'Components listed by the most recently ingested SBOM (0 without one)' }),
    sbom_status: Type.Union([Type.Literal('none'), Type.Literal('cyclonedx'), Type.Literal('spdx')], {
      description: 'Format of the most recently ingested SBOM',
    }),
    status: Type.Union([Type.Literal('active'), Type.Literal('archived')]),
    risk_level: Type.Union([Type.Literal('low'), Type.Literal('medium'), Type.Literal('high')], {
      description: 'high: an open notifiable case on the product; medium: an open case; low: none',
    }),
  },
  { $id: 'Product', title: 'Product', additionalProperties: false },
);

export const ProductListSchema = Type.Object(
  {
    products: Type.Array(Type.Ref(ProductSchema)),
    count: Type.Integer({ minimum: 0 }),
  },
  { $id: 'ProductList', title: 'ProductList' },
);

export type ProductList = Static<typeof ProductListSchema>;
