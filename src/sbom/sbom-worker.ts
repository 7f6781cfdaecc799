import { AppError } from '../errors.js';
import { readSbomBytes, type SbomReading } from './read-sbom.js';

// Runs in a worker thread of sbom-reader.ts. An AppError cannot cross the thread boundary as
// itself, so it comes back as data; anything else is a bug and is thrown.

export type WorkerAnswer =
  | { ok: true; reading: SbomReading }
  | { ok: false; code: AppError['code']; message: string; details?: AppError['details'] };

export default function readInWorker(bytes: Uint8Array): WorkerAnswer {
  try {
    return { ok: true, reading: readSbomBytes(bytes) };
  } catch (error) {
    if (error instanceof AppError) return { ok: false, code: error.code, message: error.message, details: error.details };
    throw error;
  }
}
