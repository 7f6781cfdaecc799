import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { RETRY_AFTER_SECONDS } from '../sbom/http/body-budget.js';
import { actorOf, type ConsoleDeps } from './context.js';
import { serviceErrors } from './forms.js';
import { productPage } from './products.page.js';
import { render } from './render.js';

// The SBOM upload form: the only console route that takes a file, and the only one with a
// multipart parser. Nothing of the body is read before the session, the membership and the role
// are checked (the console's preHandlers: its permission is sbom) and its size is held from the
// API's in-flight bound; then the CSRF token, the form's first part, is checked before a byte of
// the file is read; the file is then streamed into chunks (never joined here, as the API does),
// at most SBOM_MAX_BYTES of it.

/** Room for the token's part, the file part's head and the boundaries around SBOM_MAX_BYTES. */
const FORM_OVERHEAD = 64 * 1024;

type Upload = { file: Buffer[] } | { refused: true } | { problem: 'missing' | 'too_large' };

export async function registerSbomUpload(upload: FastifyInstance, deps: ConsoleDeps): Promise<void> {
  const maxBytes = deps.config.sbomMaxBytes;
  // No attachFieldsToBody: the parser only marks the request; the handler reads the parts.
  await upload.register(multipart, { limits: { fields: 1, files: 1, parts: 2, fieldSize: 256, fileSize: maxBytes } });

  upload.post(
    '/products/:sku/sbom',
    { config: { permission: 'sbom', csrfInBody: true, requestTimeoutMs: deps.config.sbomRequestTimeoutMs } },
    async (request, reply) => {
      const product = await deps.products.requireProduct(request.viewer!.org!.org_id, (request.params as { sku: string }).sku);
      const noFile = () => productPage(deps, request, reply, { errors: { sbom: 'Choose an SBOM file (CycloneDX or SPDX JSON).' } }, 400);
      // A form without a file (its token was checked like any other form's).
      if (!request.isMultipart()) return noFile();

      const declared = Number(request.headers['content-length']);
      if (declared > maxBytes + FORM_OVERHEAD) return tooLarge(request, reply);
      const size = Number.isFinite(declared) && declared >= 0 ? Math.min(declared, maxBytes) : maxBytes;
      const held = deps.sbomBodies.hold(request, reply, product.org_id, size);
      if (held === 'full' || held === 'share') {
        request.log.warn({ heldBytes: deps.sbomBodies.heldBytes, size }, 'console SBOM upload refused: the in-flight bound is held');
        reply.header('retry-after', String(RETRY_AFTER_SECONDS));
        return render(
          request,
          reply,
          'error',
          { title: 'Busy', message: 'Too many SBOM uploads are being processed. Try again in a few seconds.' },
          503,
        );
      }

      const read = await readUpload(upload, request, reply);
      if ('refused' in read) return reply;
      if ('problem' in read) return read.problem === 'missing' ? noFile() : tooLarge(request, reply);
      try {
        const result = await deps.sbom.ingestSbom({
          orgId: product.org_id,
          sku: product.sku,
          bytes: read.file,
          actor: actorOf(request.viewer!),
        });
        const { sbom } = result;
        const notice = result.created
          ? `Stored as revision ${result.revision} of release ${sbom.release_version}: ${sbom.components} components (${sbom.format} ${sbom.spec_version}).`
          : `This exact document is already revision ${result.revision} of release ${sbom.release_version}; nothing new was stored.`;
        return productPage(deps, request, reply, { notice });
      } catch (error) {
        return productPage(deps, request, reply, { errors: serviceErrors(error, 'sbom') }, 400);
      }
    },
  );
}

function tooLarge(request: FastifyRequest, reply: FastifyReply) {
  return render(request, reply, 'error', { title: 'Too large', message: 'The upload is larger than this server accepts.' }, 413);
}

/**
 * Reads the form's parts in order: the CSRF token (or the X-CSRF-Token header) is checked before
 * the file part is read; a file that comes first, without the header, is refused unread.
 */
async function readUpload(scope: FastifyInstance, request: FastifyRequest, reply: FastifyReply): Promise<Upload> {
  const parts = request.parts();
  let part = await parts.next();
  const token = !part.done && part.value.type === 'field' && part.value.fieldname === '_csrf' ? String(part.value.value) : undefined;
  // What @fastify/csrf-protection reads: the body's _csrf, else the header htmx sends.
  request.body = { _csrf: token };
  let passed = false;
  // Synchronous: it either calls back or has answered 403 (the plugin's error, the console's page).
  scope.csrfProtection(request, reply, () => {
    passed = true;
  });
  if (!passed) return { refused: true };
  if (token !== undefined) part = await parts.next();
  if (part.done || part.value.type !== 'file' || part.value.fieldname !== 'sbom') return { problem: 'missing' };
  const stream = part.value.file;
  const file: Buffer[] = [];
  let length = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    file.push(chunk);
    length += chunk.length;
  }
  if (stream.truncated) return { problem: 'too_large' };
  if (length === 0) return { problem: 'missing' };
  return { file };
}
