import compress from '@fastify/compress';
import type { FastifyInstance } from 'fastify';

/**
 * Response compression when the client asks for it (Accept-Encoding): brotli first, then gzip.
 * Bodies under 1 KiB (errors, IncidentCreated, most scores) and clients that send no
 * Accept-Encoding get the identical uncompressed bytes. Large bodies are compressed on the libuv
 * thread pool, off the event loop. Request bodies are never decompressed: a Content-Encoding on
 * a request keeps meaning what it meant before (the body limits count the bytes received).
 */
export async function registerCompression(app: FastifyInstance): Promise<void> {
  await app.register(compress, { encodings: ['br', 'gzip'], threshold: 1024, globalDecompression: false });
}
