import { isUtf8 } from 'node:buffer';
import { inflateRawSync } from 'node:zlib';
import { packageKeysOf } from '../match/record-packages.js';
import { checkedCanonical, FeedRecordError, parseJson } from './json-text.js';
import { readOsvRecord } from './osv-record.js';

// One OSV record from its bytes to the row the store writes: inflated, parsed, checked, digested,
// its package keys found. Pure and self-contained, so it runs in the import's worker threads
// (record-worker.ts) as well as anywhere else.

/** An entry as the source found it: stored (method 0) or deflated (8) bytes. */
export interface RawRecord {
  entry: string;
  data: Uint8Array;
  method: number;
  size: number;
}

/** A record ready to store: its text columns already serialised (they cross a thread cheaply). */
export interface PreparedRecord {
  id: string;
  vulnKey: string;
  digest: string;
  summary: string | null;
  details: string | null;
  aliases: string[];
  severity: string;
  affected: string;
  references: string;
  published: string | null;
  modified: string | null;
  withdrawn: string | null;
  packageKeys: string[];
}

/** A record not stored, and why: named by its id when one could be read, else by its place in the input. */
export type Skipped = { skipped: { id: string; reason: string } | { entry: string; reason: string } };

export type Prepared = { record: PreparedRecord } | Skipped;

/** The largest single record read (osv.dev's largest are a few hundred KiB). */
export const MAX_RECORD_BYTES = 4 * 1024 * 1024;

function inflate(raw: RawRecord): Buffer {
  const data = Buffer.from(raw.data.buffer, raw.data.byteOffset, raw.data.byteLength);
  if (raw.method === 0) return data;
  if (raw.method !== 8)
    throw new FeedRecordError(`could not be read: it uses compression method ${raw.method} (only stored and deflated are read)`);
  let bytes: Buffer;
  try {
    // Synchronous and small: a record is at most a few MiB, and maxOutputLength stops a bomb.
    bytes = inflateRawSync(data, { maxOutputLength: MAX_RECORD_BYTES });
  } catch (error) {
    const code = (error as { code?: string }).code;
    throw new FeedRecordError(
      `could not be read: ${code === 'ERR_BUFFER_TOO_LARGE' ? `it inflates to more than ${MAX_RECORD_BYTES} bytes` : 'its data is damaged'}`,
    );
  }
  if (bytes.length !== raw.size)
    throw new FeedRecordError(`could not be read: it inflates to ${bytes.length} bytes, not the ${raw.size} its header says`);
  return bytes;
}

export function prepareRecord(raw: RawRecord): Prepared {
  let bytes: Buffer | undefined;
  try {
    bytes = inflate(raw);
    const value = parseJson(bytes);
    const r = readOsvRecord(value, checkedCanonical(value));
    return {
      record: {
        id: r.id,
        vulnKey: r.vulnKey,
        digest: r.digest,
        summary: r.summary,
        details: r.details,
        aliases: r.aliases,
        severity: JSON.stringify(r.severity),
        affected: JSON.stringify(r.affected),
        references: JSON.stringify(r.references),
        published: r.published,
        modified: r.modified,
        withdrawn: r.withdrawn,
        packageKeys: packageKeysOf(r.affected),
      },
    };
  } catch (error) {
    if (!(error instanceof FeedRecordError)) throw error;
    // Named by its id when one can be read off its first bytes, else by its entry.
    const id = bytes && isUtf8(bytes) ? /"id"\s*:\s*"([^"]{1,200})"/.exec(bytes.subarray(0, 4096).toString('utf8'))?.[1] : undefined;
    return { skipped: id ? { id, reason: error.message } : { entry: raw.entry, reason: error.message } };
  }
}
