import { promisify } from 'node:util';
import { brotliCompress, brotliDecompress, constants } from 'node:zlib';
import { AppError } from '../../errors.js';
import { sha256InSteps } from '../../shared/sha256-in-steps.js';

// How a document as received is kept: brotli at quality 4. Measured on CycloneDX documents
// (docs/benchmarks.md, "Stored documents"): 10,000 components with random SHA-256 hashes
// (5.5 MB) to 10.8 % in ~0.3 s, where gzip -6 gives 11.7 % and -9 11.5 % in 0.2–0.5 s, and
// brotli 9 10.8 % in 1.6 s, 11 8.4 % in 40 s. Both directions run on libuv's thread pool
// (zlib's async functions), never on the event loop.

export const DOCUMENT_ENCODING = 'br' as const;
const QUALITY = 4;

const compress = promisify(brotliCompress);
const decompress = promisify(brotliDecompress);

/** The document's bytes, compressed as they are kept. */
export function compressDocument(bytes: Uint8Array): Promise<Buffer> {
  return compress(bytes, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: QUALITY,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_SIZE_HINT]: bytes.byteLength,
    },
  });
}

/** What is needed to give a kept document back and to tell it is the one received. */
export interface KeptDocument {
  digest: string;
  encoding: string;
  size: number;
  content: Uint8Array;
}

/**
 * The kept document's bytes as received, checked against its SHA-256: a row that does not give
 * back exactly `size` bytes hashing to `digest` (a corrupt or altered row) is an error, never
 * other bytes. `what` names the document in the message ("revision 2 of release 1.0 of gw-1").
 */
export async function openDocument(kept: KeptDocument, what: string): Promise<Buffer> {
  const corrupt = (why: string) =>
    new AppError(
      'internal_error',
      `the stored document of ${what} is corrupt (${why}): it is not given out; restore the sbom_documents row ${kept.digest} from a backup`,
    );
  if (kept.encoding !== DOCUMENT_ENCODING) throw corrupt(`unknown encoding "${kept.encoding}"`);
  let bytes: Buffer;
  try {
    // Never more than the size recorded: a row altered to inflate further stops there.
    bytes = await decompress(kept.content, { maxOutputLength: Math.max(1, kept.size) });
  } catch {
    throw corrupt('it does not decompress');
  }
  if (bytes.byteLength !== kept.size) throw corrupt(`${bytes.byteLength} bytes, not ${kept.size}`);
  const digest = await sha256InSteps(bytes);
  if (digest !== kept.digest) throw corrupt(`its SHA-256 is ${digest}`);
  return bytes;
}
