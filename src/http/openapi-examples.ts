import { ERROR_STATUS, type ErrorBody, type ErrorCode } from '../errors.js';

// Examples for the OpenAPI document. @fastify/swagger drops `examples` written beside a `$ref`
// (every body and answer here is a named component, so generated clients get named types), so
// each operation declares its examples in its route config (`config.examples`) and they are
// placed on the operation's media types once the document is built. Swagger UI shows the first
// example of a request body as the body "Try it out" sends, instead of one it invents.

export interface Example {
  summary: string;
  value: unknown;
}
export type Examples = Record<string, Example>;

export interface OperationExamples {
  /** Per request media type. */
  request?: Record<string, Examples>;
  /** Per status; an error status without its own examples gets the default one below. */
  responses?: Record<string, Examples>;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The operation's request and response examples for the OpenAPI document. */
    examples?: OperationExamples;
  }
}

export const EXAMPLE_REQUEST_ID = '6f0d3c1e-2b4a-4c5d-9e8f-0a1b2c3d4e5f';

/** An error body as the API sends it. */
export function errorExample(code: ErrorCode, message: string, details?: ErrorBody['details']): Example {
  const value: ErrorBody = { errore: message, code, request_id: EXAMPLE_REQUEST_ID };
  if (details) value.details = details;
  return { summary: code, value };
}

/** What every operation can answer with each error status, unless it names its own example. */
const DEFAULT_ERRORS: Record<string, Example> = {
  400: errorExample('invalid_json', 'the body is not valid JSON'),
  401: errorExample('unauthorized', 'a valid API key is required (X-CRA-API-Key or Authorization: Bearer)'),
  403: errorExample('forbidden', 'this key lacks the scope products:read'),
  404: errorExample('product_not_found', 'no product with SKU "RTR-404"'),
  405: errorExample('method_not_allowed', 'DELETE is not allowed here; use GET'),
  409: errorExample('product_archived', 'product "RTR-100" is archived'),
  413: errorExample('payload_too_large', 'the body is larger than this operation accepts'),
  415: errorExample('unsupported_media_type', 'the body must be sent with Content-Type: application/json'),
  422: errorExample('validation_failed', 'the request body is invalid', [
    { path: '/description', message: "must have required property 'description'" },
  ]),
  429: errorExample('rate_limited', 'rate limit of 100 requests per minute exceeded'),
  503: errorExample('service_unavailable', 'the service is temporarily unavailable; retry later'),
};

// Every default example names a real code of its status.
for (const [status, example] of Object.entries(DEFAULT_ERRORS)) {
  const code = (example.value as ErrorBody).code as ErrorCode;
  if (String(ERROR_STATUS[code]) !== status) throw new Error(`example for ${status} uses ${code}`);
}

type Media = { examples?: Examples; example?: unknown };
type Operation = {
  operationId?: string;
  requestBody?: { content?: Record<string, Media> };
  responses?: Record<string, { content?: Record<string, Media> }>;
};

/** Puts each operation's examples (and the default error examples) on its media types. */
export function applyExamples<T extends { paths?: object }>(document: T, byOperation: ReadonlyMap<string, OperationExamples>): T {
  for (const item of Object.values((document.paths ?? {}) as Record<string, Record<string, Operation>>)) {
    for (const operation of Object.values(item)) {
      const declared = (operation.operationId && byOperation.get(operation.operationId)) || {};
      for (const [mediaType, media] of Object.entries(operation.requestBody?.content ?? {})) {
        const examples = declared.request?.[mediaType];
        if (examples) media.examples = examples;
      }
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const fallback = DEFAULT_ERRORS[status];
        const examples = declared.responses?.[status] ?? (fallback ? { [fallback.summary]: fallback } : undefined);
        for (const media of Object.values(response.content ?? {})) if (examples) media.examples = examples;
      }
    }
  }
  return document;
}
