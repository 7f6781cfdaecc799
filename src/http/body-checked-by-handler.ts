import { Ajv } from 'ajv';
import type { FastifySchemaCompiler } from 'fastify';

// Path, query and header schemas checked as everywhere else (the app's ajv options).
const ajv = new Ajv({ coerceTypes: false, removeAdditional: true, allErrors: true });

/**
 * A route's validatorCompiler for an operation whose body its service checks itself (SBOM
 * ingest: a raw Buffer whose schema only documents it). The body passes through; every other
 * part (params, querystring, headers) is still validated against its schema.
 */
export const bodyCheckedByHandler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  if (httpPart === 'body') return (data) => ({ value: data });
  return ajv.compile(schema as object);
};
