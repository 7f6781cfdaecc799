import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { createGunzip } from 'node:zlib';
import { ArrayElements, JsonStructureError } from './json-array-elements.js';
import { checkedCanonical, FeedRecordError, MAX_DEPTH, parseJson } from './json-text.js';
import { type NvdRecord, readNvdRecord } from './nvd-record.js';
import { MAX_RECORD_BYTES } from './prepare-record.js';

// Where NVD records come from (firmware.md, Feeds): a CVE API 2.0 response page or a 2.0 feed
// file (`{"format": "NVD_CVE", …, "vulnerabilities": [{"cve": {…}}, …]}`, plain or gzipped),
// streamed element by element so memory holds one record whatever the file's size (a yearly
// feed is ~100 MB, the whole NVD ~2 GB); or a single record file (the `cve` object alone).

/** A record read, or why one was not (named by its CVE id when one can be read, else its place). */
export type NvdItem = { record: NvdRecord } | { skipped: { id: string; reason: string } | { entry: string; reason: string } };

/** The whole input could not be read (not JSON, a broken structure, a truncated gzip). */
export class NvdSourceError extends Error {}

/** What a gzipped feed may decompress to: the whole NVD is ~2 GB of JSON; a bomb stops here. */
export const MAX_NVD_BYTES = 8 * 1024 * 1024 * 1024;

export interface NvdSource {
  /** The input's size on disk, for the share done (progress). */
  size: number;
  /** Bytes of the input read so far (compressed bytes for a gzip). */
  bytesRead(): number;
  items: AsyncIterable<NvdItem>;
}

/** One parsed element (or single record) → the record, or why it was skipped. */
export function nvdItem(bytes: Buffer, entry: string): NvdItem {
  try {
    const value = parseJson(bytes);
    // Digested without its `{"cve": …}` wrapper: the same record from a feed file or alone is one content.
    const cve = value && typeof value === 'object' && !Array.isArray(value) && 'cve' in value ? (value as { cve: unknown }).cve : value;
    return { record: readNvdRecord(cve, checkedCanonical(cve)) };
  } catch (error) {
    if (!(error instanceof FeedRecordError)) throw error;
    const id = /"id"\s*:\s*"(CVE-[^"]{1,40})"/.exec(bytes.subarray(0, 4096).toString('utf8'))?.[1];
    return { skipped: id ? { id, reason: error.message } : { entry, reason: error.message } };
  }
}

/** A feed file or API page, plain or gzipped, its `vulnerabilities` split as it streams in. */
export async function nvdFeedSource(path: string, gzip: boolean): Promise<NvdSource> {
  const { size } = await stat(path);
  const file = createReadStream(path, { highWaterMark: 256 * 1024 });
  let inflated = 0;
  async function* items(): AsyncGenerator<NvdItem> {
    const splitter = new ArrayElements({ key: 'vulnerabilities', maxElement: MAX_RECORD_BYTES, maxDepth: MAX_DEPTH });
    const stream = gzip ? file.pipe(createGunzip()) : file;
    if (gzip) file.on('error', (error) => stream.destroy(error));
    try {
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        inflated += chunk.length;
        if (inflated > MAX_NVD_BYTES) throw new NvdSourceError(`decompresses to more than ${MAX_NVD_BYTES / 1024 ** 3} GiB`);
        const out: NvdItem[] = [];
        splitter.push(
          chunk,
          (bytes, index) => out.push(nvdItem(bytes, `vulnerabilities[${index}]`)),
          (s) => out.push({ skipped: { entry: `vulnerabilities[${s.index}]`, reason: s.reason } }),
        );
        yield* out;
      }
      const { fields, sawArray } = splitter.end();
      if (!sawArray) throw new NvdSourceError('holds no "vulnerabilities" array: not an NVD feed file or API response');
      if (fields.format !== undefined && fields.format !== 'NVD_CVE')
        throw new NvdSourceError(`has format "${String(fields.format)}", not NVD_CVE`);
    } catch (error) {
      if (error instanceof JsonStructureError) throw new NvdSourceError(`is not an NVD feed: the JSON ${error.message}`);
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'Z_DATA_ERROR' || code === 'Z_BUF_ERROR') throw new NvdSourceError('is not a readable gzip file');
      throw error;
    } finally {
      file.destroy();
    }
  }
  return { size, bytesRead: () => file.bytesRead, items: items() };
}

/** A single record file (the `cve` object alone). */
export async function nvdRecordFileSource(path: string): Promise<NvdSource> {
  const { size } = await stat(path);
  let read = 0;
  async function* items(): AsyncGenerator<NvdItem> {
    if (size > MAX_RECORD_BYTES) {
      yield { skipped: { entry: path, reason: `is ${size} bytes (at most ${MAX_RECORD_BYTES})` } };
      return;
    }
    const bytes = await readFile(path);
    read = bytes.length;
    yield nvdItem(bytes, path);
  }
  return { size, bytesRead: () => read, items: items() };
}
