import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { apiSecurity, authErrors, success } from '../http/openapi-responses.js';
import { ProductListSchema, ProductSchema } from './products.schemas.js';
import type { ProductService } from './products.service.js';

export function listProductsRoute(app: FastifyInstance, deps: { products: ProductService }): void {
  app.get(
    '/products',
    {
      config: { scope: 'products:read' },
      schema: {
        operationId: 'listProducts',
        summary: 'List the product catalogue',
        description:
          "Every product of the key's organisation, archived ones included, with the status of its latest SBOM and its risk level. " +
          'No pagination and no filtering: a query string is ignored. Requires scope `products:read`.',
        tags: ['products'],
        security: apiSecurity,
        response: { 200: success(Type.Ref(ProductListSchema), 'The whole catalogue with its count'), ...authErrors },
      },
    },
    async (request) => {
      const { orgId, orgStamp } = request.principal!;
      const products = await deps.products.listProducts(orgId, orgStamp);
      return { products, count: products.length };
    },
  );
}

export const productSchemas = [ProductSchema, ProductListSchema];
