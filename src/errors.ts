import { Type, type Static } from '@sinclair/typebox';

// One error taxonomy for services, the HTTP layer and the CLI. Services throw AppError with a
// stable code; the HTTP error handler maps it to a status and the JSON body below; the CLI
// prints the message and exits 1.

export const ERROR_STATUS = {
  invalid_json: 400,
  invalid_host: 400,
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  product_not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  product_archived: 409,
  payload_too_large: 413,
  uri_too_long: 414,
  unsupported_media_type: 415,
  expectation_failed: 417,
  validation_failed: 422,
  unsupported_sbom_format: 422,
  invalid_sbom: 422,
  sbom_not_conformant: 422,
  rate_limited: 429,
  header_too_large: 431,
  internal_error: 500,
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorDetail {
  path: string;
  message: string;
  /** sbom_not_conformant: a required field id of the profile the document lacks (sbom-conformance.md). */
  field?: string;
  /** sbom_not_conformant: on how many components (1 for a document field). */
  missing?: number;
  /** sbom_not_conformant: up to 5 components lacking it, as "name version: why". */
  examples?: string[];
  /** sbom_not_conformant: a finding on the whole document (format_below_floor, vulnerabilities_in_sbom). */
  finding?: string;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetail[] | undefined;

  constructor(code: ErrorCode, message: string, details?: ErrorDetail[]) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.details = details;
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

export const ErrorDetailSchema = Type.Object({
  path: Type.String({ description: 'JSON pointer to the failing part of the request body ("" for the whole document)' }),
  message: Type.String(),
  field: Type.Optional(
    Type.String({
      description: 'sbom_not_conformant: a required field id of the profile that the document lacks, e.g. component.hash_sha512',
    }),
  ),
  missing: Type.Optional(
    Type.Integer({ minimum: 1, description: 'sbom_not_conformant: components lacking the field (1 for a document field)' }),
  ),
  examples: Type.Optional(
    Type.Array(Type.String(), {
      maxItems: 5,
      description: 'sbom_not_conformant: up to five components lacking it, as "name version: why"',
    }),
  ),
  finding: Type.Optional(
    Type.String({
      description: 'sbom_not_conformant: a finding on the whole document, e.g. format_below_floor or vulnerabilities_in_sbom',
    }),
  ),
});

export const ErrorBodySchema = Type.Object(
  {
    errore: Type.String({ description: 'Human-readable message' }),
    code: Type.String({ description: 'Stable machine-readable error code' }),
    request_id: Type.String({ description: 'Identifier of the request, also in the X-Request-Id header' }),
    details: Type.Optional(Type.Array(ErrorDetailSchema)),
  },
  { $id: 'Error', title: 'Error' },
);

export type ErrorBody = Static<typeof ErrorBodySchema>;
