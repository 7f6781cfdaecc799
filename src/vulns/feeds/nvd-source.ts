import { createReadStream } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { createGunzip, createInflateRaw } from 'node:zlib';
import { ArrayElements, JsonStructureError } from './json-array-elements.js';
import { MAX_DEPTH } from './json-text.js';
import { SourceError, zipEntryPlaces } from './osv-source.js';
import type { RawNvd } from './prepare-nvd.js';
import { MAX_RECORD_BYTES, type Skipped } from './prepare-record.js';

// Where NVD records come from (firmware.md, Feeds): a CVE API 2.0 response page or a 2.0 feed
// file (`{"format": "NVD_CVE", …, "vulnerabilities": [{"cve": {…}}, …]}`: plain, gzipped, or
// zipped as the NVD serves them), streamed element by element so memory holds one record
// whatever the file's size (a yearly feed is ~100 MB, the whole NVD ~2 GB); a directory of
// single records (the `cve` object alone, one per file, as mirrors of the NVD keep them); or one
// such file.

/** A record's bytes as read (prepared later, in prepare-nvd.ts), or why they were not read. */
export type NvdItem = RawNvd | Skipped;

/** The whole input could not be read (not JSON, a broken structure, a truncated or hostile archive). */
export class NvdSourceError extends Error {}

/** What a compressed feed may decompress to: the whole NVD is ~2 GB of JSON. */
export const MAX_NVD_BYTES = 8 * 1024 * 1024 * 1024;
/**
 * How many times its compressed size a feed may decompress to. The NVD's JSON compresses about
 * 10 to 20 times; a bomb of blanks a thousand times, and would keep the import busy for minutes.
 */
export const MAX_NVD_RATIO = 200;
/** Entries of a zip looked at: the NVD's zipped feed files hold one. */
const MAX_ZIP_FEEDS = 64;

export interface NvdSource {
  /** The input's size on disk (a directory: its number of files), for the share done. */
  size: number;
  /** How much of `size` has been read. */
  done(): number;
  items: AsyncIterable<NvdItem>;
}

/**
 * The records of one feed document as it streams in (`compressed`: the bytes read for it so far,
 * when it is inflated, to bound the ratio). Entries are named `prefix` + `vulnerabilities[i]`.
 */
export async function* feedItems(
  stream: Readable,
  prefix: string,
  compressed: (() => number) | null,
): AsyncGenerator<NvdItem, Record<string, unknown>> {
  const splitter = new ArrayElements({ key: 'vulnerabilities', maxElement: MAX_RECORD_BYTES, maxDepth: MAX_DEPTH });
  let inflated = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      inflated += chunk.length;
      if (compressed) {
        if (inflated > MAX_NVD_BYTES) throw new NvdSourceError(`${prefix}decompresses to more than ${MAX_NVD_BYTES / 1024 ** 3} GiB`);
        if (inflated > MAX_NVD_RATIO * compressed() + 1024 * 1024)
          throw new NvdSourceError(`${prefix}decompresses to more than ${MAX_NVD_RATIO} times its size: refused as a compression bomb`);
      }
      const out: NvdItem[] = [];
      splitter.push(
        chunk,
        (bytes, index) => out.push({ entry: `${prefix}vulnerabilities[${index}]`, bytes }),
        (s) => out.push({ skipped: { entry: `${prefix}vulnerabilities[${s.index}]`, reason: s.reason } }),
      );
      yield* out;
    }
    const { fields, sawArray } = splitter.end();
    if (!sawArray) throw new NvdSourceError(`${prefix}holds no "vulnerabilities" array: not an NVD feed file or API response`);
    if (fields.format !== undefined && fields.format !== 'NVD_CVE')
      throw new NvdSourceError(`${prefix}has format "${String(fields.format)}", not NVD_CVE`);
    return fields;
  } catch (error) {
    if (error instanceof JsonStructureError) throw new NvdSourceError(`${prefix}is not an NVD feed: the JSON ${error.message}`);
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'Z_DATA_ERROR' || code === 'Z_BUF_ERROR')
      throw new NvdSourceError(`${prefix}is not readable: its compressed data is damaged`);
    throw error;
  } finally {
    stream.destroy();
  }
}

/** A feed file or API page, plain or gzipped. */
export async function nvdFeedSource(path: string, gzip: boolean): Promise<NvdSource> {
  const { size } = await stat(path);
  const file = createReadStream(path, { highWaterMark: 256 * 1024 });
  let stream: Readable = file;
  if (gzip) {
    const gunzip = createGunzip();
    file.on('error', (error) => gunzip.destroy(error));
    stream = file.pipe(gunzip);
  }
  async function* items(): AsyncGenerator<NvdItem> {
    try {
      yield* feedItems(stream, '', gzip ? () => file.bytesRead : null);
    } finally {
      file.destroy();
    }
  }
  return { size, done: () => file.bytesRead, items: items() };
}

/** Whether a zip is the NVD's: its first `.json` entry starts like a feed file (`looks` decides). */
export async function nvdZipEntries(path: string) {
  try {
    return await zipEntryPlaces(path, MAX_ZIP_FEEDS);
  } catch (error) {
    if (error instanceof SourceError) throw new NvdSourceError(error.message);
    throw error;
  }
}

/** A zip's `.json` entries (the NVD's zipped feed files hold one), each streamed as a feed file. */
export async function nvdZipSource(path: string): Promise<NvdSource> {
  const { size } = await stat(path);
  const { entries, places } = await nvdZipEntries(path);
  if (entries > MAX_ZIP_FEEDS) throw new NvdSourceError(`holds ${entries} entries: an NVD feed zip holds a few feed files`);
  let done = 0;
  async function* items(): AsyncGenerator<NvdItem> {
    for (const place of places) {
      if (place.name.endsWith('/') || !place.name.endsWith('.json')) continue;
      const prefix = `${place.name}: `;
      if (place.encrypted) throw new NvdSourceError(`${prefix}is encrypted`);
      if (place.method !== 0 && place.method !== 8) throw new NvdSourceError(`${prefix}uses compression method ${place.method}`);
      if (place.compressedSize === 0) continue;
      const file = createReadStream(path, {
        start: place.dataStart,
        end: place.dataStart + place.compressedSize - 1,
        highWaterMark: 256 * 1024,
      });
      const before = done;
      file.on('data', () => {
        done = before + file.bytesRead;
      });
      let stream: Readable = file;
      if (place.method === 8) {
        const inflate = createInflateRaw();
        file.on('error', (error) => inflate.destroy(error));
        stream = file.pipe(inflate);
      }
      try {
        yield* feedItems(stream, prefix, place.method === 8 ? () => file.bytesRead : null);
      } finally {
        file.destroy();
      }
      done = before + place.compressedSize;
    }
  }
  return { size, done: () => done, items: items() };
}

/** One record file (the `cve` object alone), within MAX_RECORD_BYTES. */
async function recordFile(path: string, entry: string): Promise<NvdItem> {
  const info = await stat(path);
  if (info.size > MAX_RECORD_BYTES) return { skipped: { entry, reason: `is ${info.size} bytes (at most ${MAX_RECORD_BYTES})` } };
  return { entry, bytes: await readFile(path) };
}

/** A single record file. */
export async function nvdRecordFileSource(path: string): Promise<NvdSource> {
  const { size } = await stat(path);
  let done = 0;
  async function* items(): AsyncGenerator<NvdItem> {
    yield await recordFile(path, path);
    done = size;
  }
  return { size, done: () => done, items: items() };
}

/** The `.json` files under a directory, in name order (as a mirror of the NVD lays them out), one at a time. */
export async function nvdDirectorySource(dir: string): Promise<NvdSource> {
  const names = (await readdir(dir, { recursive: true })).filter((n) => n.endsWith('.json')).sort();
  let done = 0;
  async function* items(): AsyncGenerator<NvdItem> {
    for (const name of names) {
      const path = join(dir, name);
      if ((await stat(path)).isFile()) yield await recordFile(path, name);
      done++;
    }
  }
  return { size: names.length, done: () => done, items: items() };
}

/** The first `.json` file of a directory (in name order), to tell what the directory holds. */
export async function firstJsonFile(dir: string): Promise<string | null> {
  const names = (await readdir(dir, { recursive: true })).filter((n) => n.endsWith('.json')).sort();
  for (const name of names) if ((await stat(join(dir, name))).isFile()) return join(dir, name);
  return null;
}
