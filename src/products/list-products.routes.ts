import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { apiSecurity, authErrors, success } from '../http/openapi-responses.js';
import { PRODUCT_LIST_EXAMPLE, ProductListSchema, ProductSchema } from './products.schemas.js';
import type { ProductService } from './products.service.js';

export function listProductsRoute(app: FastifyInstance, deps: { products: ProductService }): void {
  app.get(
    '/products',
    {
      config: {
        scope: 'products:read',
        examples: {
          responses: {
            200: {
              catalogue: { summary: 'An active product with an open notifiable case, and an archived one', value: PRODUCT_LIST_EXAMPLE },
            },
          },
        },
      },
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
    async (request, reply) => {
      const { orgId, orgRegistrySeq } = request.principal!;
      // Serialised through the response schema; the service reuses it until the next change.
      const body = await deps.products.catalogueBody(orgId, orgRegistrySeq, (list) => reply.serialize(list) as string);
      return reply.type('application/json; charset=utf-8').send(body);
    },
  );
}

export const productSchemas = [ProductSchema, ProductListSchema];
