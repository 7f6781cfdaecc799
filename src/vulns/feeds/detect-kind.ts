import { createReadStream } from 'node:fs';
import { open, readFile, stat } from 'node:fs/promises';
import { createGunzip, createInflateRaw } from 'node:zlib';
import { AppError } from '../../errors.js';
import type { FeedKind } from '../vulns.schemas.js';
import { looksLikeEpss } from './epss.js';
import { isEuvdExploitedList, looksLikeEuvdMapping } from './euvd.js';
import { FeedRecordError, parseJsonText } from './json-text.js';
import { kevKindOf } from './kev.js';
import { firstJsonFile, NvdSourceError, nvdZipEntries } from './nvd-source.js';
import { MAX_RECORD_BYTES } from './prepare-record.js';

/** A catalogue or single record read whole is bounded (CISA's catalogue is ~1.5 MB). */
const MAX_JSON_FILE = 64 * 1024 * 1024;
/** How much of a file (decompressed, for a gzip) is looked at to tell an NVD feed from the rest. */
const HEAD = 4096;

/** How an input is read: its kind, its JSON when read whole, and the shape of an NVD input. */
export interface DetectedKind {
  kind: FeedKind;
  json?: unknown;
  gzip?: boolean;
  /** An NVD input: a feed file or API page (streamed), a zip of those, a directory of records, or one record. */
  nvd?: 'feed' | 'zip' | 'directory' | 'record';
  /** An EUVD dump: the EUVD↔CVE mapping (CSV, streamed) or the exploited list (JSON). */
  euvd?: 'mapping' | 'exploited';
}

/** The NVD's feed files and API pages say `"format": "NVD_CVE"` before their records, or open with them. */
function looksLikeNvdFeed(head: string): boolean {
  return /^\s*\{/.test(head) && (/"format"\s*:\s*"NVD_CVE"/.test(head) || /"vulnerabilities"\s*:\s*\[\s*\{\s*"cve"\s*:/.test(head));
}

/** A single NVD record: a CVE id with the NVD's own fields, none of OSV's. */
function isNvdRecord(json: unknown): boolean {
  if (!json || typeof json !== 'object' || Array.isArray(json)) return false;
  const r = json as Record<string, unknown>;
  const cve = r.cve && typeof r.cve === 'object' && !Array.isArray(r.cve) ? (r.cve as Record<string, unknown>) : r;
  return (
    typeof cve.id === 'string' &&
    /^CVE-\d{4}-\d{4,}$/.test(cve.id) &&
    ('vulnStatus' in cve || 'sourceIdentifier' in cve || 'lastModified' in cve) &&
    // Some NVD records carry a CVE 5 `affected` block too: OSV's own fields tell the two apart.
    !('schema_version' in cve || 'modified' in cve)
  );
}

/**
 * The first bytes a compressed stream decompresses to (at most HEAD), or null when it is not
 * readable: a gzip file, or the deflated bytes of a zip entry at [start, end).
 */
async function inflatedHead(path: string, method: 'gzip' | 'deflate' | 'stored', start = 0, end = 64 * 1024): Promise<string | null> {
  const input = createReadStream(path, { start, end: Math.max(start, Math.min(end, start + 64 * 1024) - 1) });
  if (method === 'stored') {
    const pieces: Buffer[] = [];
    for await (const chunk of input as AsyncIterable<Buffer>) pieces.push(chunk);
    return Buffer.concat(pieces).subarray(0, HEAD).toString('utf8');
  }
  const gunzip = input.pipe(method === 'gzip' ? createGunzip() : createInflateRaw());
  const pieces: Buffer[] = [];
  let length = 0;
  try {
    for await (const chunk of gunzip as AsyncIterable<Buffer>) {
      pieces.push(chunk);
      length += chunk.length;
      if (length >= HEAD) break;
    }
  } catch (error) {
    // A gzip larger than what was read ends early here: what it gave is enough.
    if (length === 0) return (error as NodeJS.ErrnoException).code?.startsWith('Z_') ? null : Promise.reject(error);
  } finally {
    input.destroy();
    gunzip.destroy();
  }
  return Buffer.concat(pieces).subarray(0, HEAD).toString('utf8');
}

/** A zip whose first `.json` entry starts like an NVD feed file (or any zip, when told it is the NVD's). */
async function isNvdZip(path: string, forced: FeedKind | undefined): Promise<boolean> {
  if (forced === 'nvd') return true;
  let first: Awaited<ReturnType<typeof nvdZipEntries>>['places'][number] | undefined;
  try {
    first = (await nvdZipEntries(path)).places.find((p) => p.name.endsWith('.json') && !p.encrypted);
  } catch (error) {
    if (error instanceof NvdSourceError) return false; // the OSV reader says what is wrong with it
    throw error;
  }
  if (!first || (first.method !== 0 && first.method !== 8)) return false;
  const head = await inflatedHead(path, first.method === 8 ? 'deflate' : 'stored', first.dataStart, first.dataStart + first.compressedSize);
  return head !== null && looksLikeNvdFeed(head);
}

/** A directory whose first `.json` file is an NVD record (or any directory, when told it holds the NVD's). */
async function isNvdDirectory(path: string, forced: FeedKind | undefined): Promise<boolean> {
  if (forced === 'nvd') return true;
  const first = await firstJsonFile(path);
  if (!first || (await stat(first)).size > MAX_RECORD_BYTES) return false;
  try {
    return isNvdRecord(parseJsonText(await readFile(first), { depth: 64, string: MAX_RECORD_BYTES }));
  } catch (error) {
    if (error instanceof FeedRecordError) return false;
    throw error;
  }
}

/**
 * The kind of a local input, from its first bytes (zip, gzip, CSV, an NVD feed's envelope) or
 * its JSON (read whole, and handed on). `forced` reads JSON neither OSV nor a catalogue as NVD.
 */
export async function detectKind(path: string, forced?: FeedKind): Promise<DetectedKind> {
  const info = await stat(path);
  if (info.isDirectory()) return (await isNvdDirectory(path, forced)) ? { kind: 'nvd', nvd: 'directory' } : { kind: 'osv' };
  const handle = await open(path, 'r');
  const head = Buffer.alloc(HEAD);
  const { bytesRead } = await handle.read(head, 0, head.length, 0).finally(() => handle.close());
  const start = head.subarray(0, bytesRead);
  if (start[0] === 0x50 && start[1] === 0x4b) return (await isNvdZip(path, forced)) ? { kind: 'nvd', nvd: 'zip' } : { kind: 'osv' };
  if (start[0] === 0x1f && start[1] === 0x8b) {
    const inflated = await inflatedHead(path, 'gzip');
    if (inflated !== null && (looksLikeNvdFeed(inflated) || (forced === 'nvd' && /^\s*\{/.test(inflated))))
      return { kind: 'nvd', gzip: true, nvd: 'feed' };
    return { kind: 'epss', gzip: true };
  }
  if (looksLikeEpss(start.toString('latin1'))) return { kind: 'epss', gzip: false };
  if (looksLikeEuvdMapping(start.toString('latin1'))) return { kind: 'euvd', euvd: 'mapping' };
  if (looksLikeNvdFeed(start.toString('utf8'))) return { kind: 'nvd', gzip: false, nvd: 'feed' };
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
  if (isEuvdExploitedList(json)) return { kind: 'euvd', json, euvd: 'exploited' };
  if (isNvdRecord(json)) return { kind: 'nvd', json, nvd: 'record' };
  if (json && typeof json === 'object' && 'id' in json && ('affected' in json || 'modified' in json || 'schema_version' in json))
    return { kind: 'osv', json };
  if (forced === 'nvd' && json && typeof json === 'object' && !Array.isArray(json))
    return { kind: 'nvd', json, nvd: 'vulnerabilities' in json ? 'feed' : 'record' };
  throw new AppError(
    'validation_failed',
    `${path}: not an OSV record or export, a KEV catalogue or an EPSS score file, nor an NVD record or feed or an EUVD dump`,
  );
}
