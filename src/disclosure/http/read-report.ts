import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { LIMITS } from '../disclosure.service.js';

// Reads the report form's multipart body as it streams: the form token (its first part) is
// checked before anything else is read; fields are bounded by the parser's limits; at most five
// attachments of at most 10 MiB, refused (413) the moment a sixth begins or one grows past the
// limit, never after the whole body is buffered. What it keeps is held in memory as it comes
// (`hold`, the report bodies' bound): a body that does not fit is refused ('busy') then.

export const FIELD_NAMES = [
  'product',
  'title',
  'description',
  'cve',
  'affected_versions',
  'how_found',
  'reporter_name',
  'reporter_contact',
  'credit',
  'website',
] as const;
export type FieldName = (typeof FIELD_NAMES)[number];

/** The parser's limits: a field of at most 64 KiB, five files, a bounded number of parts. */
export const MULTIPART_LIMITS = {
  fields: FIELD_NAMES.length + 1,
  fieldSize: 64 * 1024,
  files: LIMITS.attachments,
  fileSize: LIMITS.attachmentBytes,
  parts: FIELD_NAMES.length + 1 + LIMITS.attachments,
  headerPairs: 50,
};

/** The largest body worth reading: every field and file at its limit, with room for part heads. */
export const MAX_FORM_BYTES =
  MULTIPART_LIMITS.fields * MULTIPART_LIMITS.fieldSize + LIMITS.attachments * LIMITS.attachmentBytes + 64 * 1024;

export type ReadReport =
  | { ok: true; fields: Partial<Record<FieldName, string>>; files: Array<{ name: string; bytes: Buffer }> }
  | { ok: false; problem: 'refused' | 'too_large' | 'malformed' | 'busy' };

/** `hold(bytes)`: holds that many more bytes of the body in the bound, or false when they do not fit. */
export async function readReport(
  scope: FastifyInstance,
  request: FastifyRequest,
  reply: FastifyReply,
  hold: (bytes: number) => boolean,
): Promise<ReadReport> {
  const fields: Partial<Record<FieldName, string>> = {};
  const files: Array<{ name: string; bytes: Buffer }> = [];
  try {
    const parts = request.parts();
    let part = await parts.next();
    const token = !part.done && part.value.type === 'field' && part.value.fieldname === '_csrf' ? String(part.value.value) : undefined;
    if (token !== undefined && !hold(Buffer.byteLength(token))) return { ok: false, problem: 'busy' };
    request.body = { _csrf: token };
    let passed = false;
    // Synchronous: it either calls back or has answered 403 through the scope's error handler.
    scope.csrfProtection(request, reply, () => {
      passed = true;
    });
    if (!passed) return { ok: false, problem: 'refused' };
    for (part = await parts.next(); !part.done; part = await parts.next()) {
      const value = part.value;
      if (value.type === 'field') {
        if (value.valueTruncated) return { ok: false, problem: 'too_large' };
        if (!hold(Buffer.byteLength(String(value.value)))) return { ok: false, problem: 'busy' };
        if ((FIELD_NAMES as readonly string[]).includes(value.fieldname) && !(value.fieldname in fields))
          fields[value.fieldname as FieldName] = String(value.value);
        continue;
      }
      const chunks: Buffer[] = [];
      for await (const chunk of value.file as AsyncIterable<Buffer>) {
        if (!hold(chunk.length)) return { ok: false, problem: 'busy' };
        chunks.push(chunk);
      }
      if (value.file.truncated) return { ok: false, problem: 'too_large' };
      const bytes = Buffer.concat(chunks);
      // A file input left empty still sends a part: no name, no bytes.
      if (value.fieldname !== 'attachments' || (bytes.length === 0 && !value.filename)) continue;
      files.push({ name: (value.filename || 'attachment').slice(0, 255), bytes });
    }
  } catch (error) {
    const status = (error as { statusCode?: number }).statusCode;
    if (status === 413) return { ok: false, problem: 'too_large' };
    if (status && status < 500) return { ok: false, problem: 'malformed' };
    throw error;
  }
  return { ok: true, fields, files };
}
