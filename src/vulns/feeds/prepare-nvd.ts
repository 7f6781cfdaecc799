import { checkedCanonical, FeedRecordError, parseJson } from './json-text.js';
import { type NvdRecord, readNvdRecord } from './nvd-record.js';
import type { Skipped } from './prepare-record.js';

// One NVD record from its bytes to the row the store writes: parsed, checked, digested, its
// configurations and references serialised. Pure and self-contained, so it runs in the import's
// worker threads (record-worker.ts) as well as anywhere else, like prepare-record.ts for OSV.

/** A record's bytes as a source found them: a feed's `vulnerabilities[i]` or a record file. */
export interface RawNvd {
  entry: string;
  bytes: Uint8Array;
}

/** A record ready to store: its JSON columns already serialised (they cross a thread cheaply). */
export type PreparedNvdRecord = Omit<NvdRecord, 'configurations' | 'references'> & {
  configurations: string;
  references: string;
};

export type PreparedNvd = { record: PreparedNvdRecord } | Skipped;

/** One record's bytes → the record, or why it was skipped (named by its CVE id when one can be read, else its place). */
export function prepareNvd(raw: RawNvd): PreparedNvd {
  const bytes = Buffer.from(raw.bytes.buffer, raw.bytes.byteOffset, raw.bytes.byteLength);
  try {
    const value = parseJson(bytes);
    // Digested without its `{"cve": …}` wrapper: the same record from a feed file or alone is one content.
    const cve = value && typeof value === 'object' && !Array.isArray(value) && 'cve' in value ? (value as { cve: unknown }).cve : value;
    const r = readNvdRecord(cve, checkedCanonical(cve));
    return { record: { ...r, configurations: JSON.stringify(r.configurations), references: JSON.stringify(r.references) } };
  } catch (error) {
    if (!(error instanceof FeedRecordError)) throw error;
    const id = /"id"\s*:\s*"(CVE-[^"]{1,40})"/.exec(bytes.subarray(0, 4096).toString('utf8'))?.[1];
    return { skipped: id ? { id, reason: error.message } : { entry: raw.entry, reason: error.message } };
  }
}

/** A batch of records as a worker receives it: their bytes end to end in one buffer, moved rather than copied. */
export interface NvdBatch {
  bytes: Uint8Array;
  ends: number[];
  entries: string[];
}

export function packNvdBatch(items: readonly RawNvd[]): NvdBatch {
  let length = 0;
  for (const item of items) length += item.bytes.byteLength;
  const bytes = new Uint8Array(length);
  const ends: number[] = [];
  let at = 0;
  for (const item of items) {
    bytes.set(item.bytes, at);
    at += item.bytes.byteLength;
    ends.push(at);
  }
  return { bytes, ends, entries: items.map((i) => i.entry) };
}

export function prepareNvdBatch(batch: NvdBatch): PreparedNvd[] {
  let start = 0;
  return batch.ends.map((end, i) => {
    const prepared = prepareNvd({ entry: batch.entries[i]!, bytes: batch.bytes.subarray(start, end) });
    start = end;
    return prepared;
  });
}
