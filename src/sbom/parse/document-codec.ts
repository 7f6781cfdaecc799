import { promisify } from 'node:util';
import { brotliCompress, brotliDecompress, constants } from 'node:zlib';
import { AppError } from '../../errors.js';
import { sha256InSteps } from '../../shared/sha256-in-steps.js';

// How a document as received is kept: brotli at quality 1. Measured on the bench's CycloneDX
// 1.6 documents of 10,000 components (docs/benchmarks.md, "Stored documents"): with random
// SHA-256 hashes (3.6 MB) brotli 1 keeps 16.6 % in ~40 ms, brotli 4 16.4 % in ~240 ms, gzip -6
// 17.2 % in ~110 ms, gzip -1 18.9 % in ~25 ms; only brotli 10 (14.2 %) goes lower, in 17 s. On
// the bench's own document (repeating hashes) brotli 1 keeps 8.3 % in ~20 ms. The time counts:
// it is spent inside every ingest, on the same two cores. Both directions run on libuv's thread
// pool (zlib's async functions), never on an event loop.

export const DOCUMENT_ENCODING = 'br' as const;
const QUALITY = 1;

const compress = promisify(brotliCompress);
const decompress = promisify(brotliDecompress);

/** The document's bytes, compressed as they are kept. */
export function compressDocument(bytes: Uint8Array): Promise<Buffer> {
  return compress(bytes, {
    // zlib hands each output chunk back to the calling thread before it goes on. The worker's
    // thread is busy reading the document meanwhile, so with the default 16 KiB chunks the
    // compression would wait for it after each one; room for the whole output in one chunk
    // lets it run alongside the reading, start to end.
    chunkSize: chunkFor(bytes.byteLength),
    params: {
      [constants.BROTLI_PARAM_QUALITY]: QUALITY,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_SIZE_HINT]: bytes.byteLength,
    },
  });
}

/** Output room for one zlib step: a compressed document's size is well under a third of its bytes. */
function chunkFor(byteLength: number): number {
  return Math.min(64 * 1024 * 1024, Math.max(64 * 1024, Math.ceil(byteLength / 3)));
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
    bytes = await decompress(kept.content, {
      maxOutputLength: Math.max(1, kept.size),
      chunkSize: Math.min(64 * 1024 * 1024, Math.max(64 * 1024, kept.size)),
    });
  } catch {
    throw corrupt('it does not decompress');
  }
  if (bytes.byteLength !== kept.size) throw corrupt(`${bytes.byteLength} bytes, not ${kept.size}`);
  const digest = await sha256InSteps(bytes);
  if (digest !== kept.digest) throw corrupt(`its SHA-256 is ${digest}`);
  return bytes;
}
