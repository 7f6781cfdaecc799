import { open, readFile, stat } from 'node:fs/promises';
import { AppError } from '../../errors.js';
import type { FeedKind } from '../vulns.schemas.js';
import { looksLikeEpss } from './epss.js';
import { FeedRecordError, parseJsonText } from './json-text.js';
import { kevKindOf } from './kev.js';
import { MAX_RECORD_BYTES } from './prepare-record.js';

/** A catalogue or single record read whole is bounded (CISA's catalogue is ~1.5 MB). */
const MAX_JSON_FILE = 64 * 1024 * 1024;

/** The kind of a local input, from its first bytes (zip, gzip, CSV) or its JSON (read whole, and handed on). */
export async function detectKind(path: string): Promise<{ kind: FeedKind; json?: unknown; gzip?: boolean }> {
  const info = await stat(path);
  if (info.isDirectory()) return { kind: 'osv' };
  const handle = await open(path, 'r');
  const head = Buffer.alloc(512);
  const { bytesRead } = await handle.read(head, 0, head.length, 0).finally(() => handle.close());
  const start = head.subarray(0, bytesRead);
  if (start[0] === 0x50 && start[1] === 0x4b) return { kind: 'osv' };
  if (start[0] === 0x1f && start[1] === 0x8b) return { kind: 'epss', gzip: true };
  if (looksLikeEpss(start.toString('latin1'))) return { kind: 'epss', gzip: false };
  if (info.size > MAX_JSON_FILE)
    throw new AppError('validation_failed', `${path}: ${info.size} bytes of JSON (at most ${MAX_JSON_FILE}) and not a zip`);
  let json: unknown;
  try {
    json = parseJsonText(await readFile(path), { depth: 64, string: MAX_RECORD_BYTES });
  } catch (error) {
    if (error instanceof FeedRecordError)
      throw new AppError('validation_failed', `${path}: ${error.message}, and not a zip, gzip or CSV feed`);
    throw error;
  }
  const kev = kevKindOf(json);
  if (kev) return { kind: kev, json };
  if (json && typeof json === 'object' && 'id' in json && ('affected' in json || 'modified' in json || 'schema_version' in json))
    return { kind: 'osv', json };
  throw new AppError('validation_failed', `${path}: not an OSV record or export, a KEV catalogue or an EPSS score file`);
}
