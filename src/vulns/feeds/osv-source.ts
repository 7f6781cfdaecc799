import { type FileHandle, open as openFile, readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';

// Where OSV records come from: osv.dev's zip exports (one `ID.json` per record), a directory of
// such files, or single files. Each yields its records one at a time, so memory holds one record
// (and two read windows) whatever the size of the export; a zip is read entry by entry from its
// central directory.

import { MAX_RECORD_BYTES, type RawRecord } from './prepare-record.js';

export { MAX_RECORD_BYTES };
/** What one zip may decompress to in all: a zip bomb of many small-looking entries stops here. */
export const MAX_ZIP_BYTES = 8 * 1024 * 1024 * 1024;
/** How many entries a zip may hold (osv.dev's all.zip holds under a million). */
export const MAX_ZIP_ENTRIES = 5_000_000;

/** A record's bytes as found (inflated later, in prepare-record.ts), or why it was not read. */
export type SourceItem = RawRecord | { entry: string; error: string };

/** How many entries the source holds, when it can tell before reading them (a zip's directory). */
export interface Source {
  entries: number | null;
  items: AsyncIterable<SourceItem>;
}

/** The whole input could not be read (not a zip, a truncated file, a bomb as a whole). */
export class SourceError extends Error {}

/** Bytes read from the file at a time: an export's directory and entries are each read in order. */
const WINDOW = 1024 * 1024;

/**
 * A file read in order through one window of WINDOW bytes, read into the same buffer each time:
 * an import of a 150 MB export allocates one, not 150 (which lay about as garbage, ~40 MB of
 * the import's peak). A zip is read through two, one walking the central directory and one
 * the entries, so each reads on from where it was.
 */
class Window {
  private buffer: Buffer | null = null;
  private start = 0;
  private length = 0;

  constructor(
    private readonly file: FileHandle,
    readonly size: number,
  ) {}

  /**
   * Bytes [start, end) of the file: a view that stays valid until the next call (never
   * written to). A range larger than the window is read into a buffer of its own.
   */
  async range(start: number, end: number): Promise<Buffer> {
    if (start < 0 || end > this.size || end < start) throw new SourceError('the zip is damaged: a record points outside the file');
    if (this.buffer && start >= this.start && end <= this.start + this.length) {
      return this.buffer.subarray(start - this.start, end - this.start);
    }
    const large = end - start > WINDOW;
    const size = large ? end - start : Math.min(WINDOW, this.size - start);
    if (!large && !this.buffer) this.buffer = Buffer.allocUnsafeSlow(WINDOW);
    const bytes = large ? Buffer.allocUnsafe(size) : this.buffer!;
    // Forgotten first: should the read fail, the buffer holds no window.
    if (!large) this.length = 0;
    const { bytesRead } = await this.file.read(bytes, 0, size, start);
    if (bytesRead < end - start) throw new SourceError('the zip is damaged: it ends early');
    if (!large) [this.start, this.length] = [start, bytesRead];
    return bytes.subarray(0, end - start);
  }
}

interface ZipEntry {
  name: string;
  method: number;
  encrypted: boolean;
  compressedSize: number;
  uncompressedSize: number;
  localHeader: number;
}

/** Where the central directory is and how many entries it lists (zip64 when the zip needs it). */
async function centralDirectory(file: Window): Promise<{ offset: number; entries: number }> {
  // The end record is in the last 22 bytes, or before a comment of up to 65,535.
  const tailStart = Math.max(0, file.size - 22 - 65_535);
  const tail = await file.range(tailStart, file.size);
  let at = -1;
  for (let i = tail.length - 22; i >= 0; i--) {
    if (tail.readUInt32LE(i) === 0x06054b50) {
      at = i;
      break;
    }
  }
  if (at < 0) throw new SourceError('not a readable zip: no end of central directory');
  let entries = tail.readUInt16LE(at + 10);
  let offset = tail.readUInt32LE(at + 16);
  if (entries === 0xffff || offset === 0xffffffff) {
    const locator = at - 20;
    if (locator < 0 || tail.readUInt32LE(locator) !== 0x07064b50) throw new SourceError('not a readable zip: zip64 locator missing');
    const endOffset = Number(tail.readBigUInt64LE(locator + 8));
    const end = await file.range(endOffset, endOffset + 56);
    if (end.readUInt32LE(0) !== 0x06064b50) throw new SourceError('not a readable zip: zip64 end record missing');
    entries = Number(end.readBigUInt64LE(32));
    offset = Number(end.readBigUInt64LE(48));
  }
  return { offset, entries };
}

/** The zip64 extra field (0x0001) holds, in this order, the sizes and offset that did not fit. */
function zip64Fields(extra: Buffer, entry: { uncompressedSize: number; compressedSize: number; localHeader: number }): void {
  for (let e = 0; e + 4 <= extra.length; ) {
    const id = extra.readUInt16LE(e);
    const size = extra.readUInt16LE(e + 2);
    if (id === 0x0001) {
      let p = e + 4;
      const next = () => {
        const value = p + 8 <= e + 4 + size ? Number(extra.readBigUInt64LE(p)) : null;
        p += 8;
        return value;
      };
      if (entry.uncompressedSize === 0xffffffff) entry.uncompressedSize = next() ?? entry.uncompressedSize;
      if (entry.compressedSize === 0xffffffff) entry.compressedSize = next() ?? entry.compressedSize;
      if (entry.localHeader === 0xffffffff) entry.localHeader = next() ?? entry.localHeader;
    }
    e += 4 + size;
  }
}

/** The central directory's records, one at a time. */
async function* zipEntries(file: Window): AsyncGenerator<ZipEntry> {
  const { offset, entries } = await centralDirectory(file);
  if (entries > MAX_ZIP_ENTRIES) throw new SourceError(`holds ${entries} entries (at most ${MAX_ZIP_ENTRIES})`);
  let at = offset;
  for (let n = 0; n < entries; n++) {
    if (at + 46 > file.size) throw new SourceError('the zip is damaged: its directory ends early');
    // Every field read before the next range: it may read into the same buffer.
    const head = await file.range(at, at + 46);
    if (head.readUInt32LE(0) !== 0x02014b50) throw new SourceError('the zip is damaged: a directory record is broken');
    const nameLength = head.readUInt16LE(28);
    const extraLength = head.readUInt16LE(30);
    const commentLength = head.readUInt16LE(32);
    const entry: Omit<ZipEntry, 'name'> = {
      method: head.readUInt16LE(10),
      encrypted: (head.readUInt16LE(8) & 1) === 1,
      compressedSize: head.readUInt32LE(20),
      uncompressedSize: head.readUInt32LE(24),
      localHeader: head.readUInt32LE(42),
    };
    const rest = await file.range(at + 46, at + 46 + nameLength + extraLength);
    const named: ZipEntry = { name: rest.subarray(0, nameLength).toString('utf8'), ...entry };
    zip64Fields(rest.subarray(nameLength), named);
    yield named;
    at += 46 + nameLength + extraLength + commentLength;
  }
}

/**
 * The most bytes an entry can hold for its size: a stored one its size, a deflated one zlib's
 * conservative bound (deflate never expands data more), anything else as much.
 */
function largestCompressed(entry: ZipEntry): number {
  const n = entry.uncompressedSize;
  return entry.method === 0 ? n : n + Math.ceil(n / 8) + Math.ceil(n / 64) + 16;
}

/** An entry's stored bytes (a copy: the window they are read through is not kept). */
async function entryData(file: Window, entry: ZipEntry): Promise<Uint8Array> {
  const local = await file.range(entry.localHeader, entry.localHeader + 30);
  if (local.readUInt32LE(0) !== 0x04034b50) throw new Error('its local header is broken');
  const start = entry.localHeader + 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
  return new Uint8Array(await file.range(start, start + entry.compressedSize));
}

/**
 * The `.json` entries of a zip, one at a time, as stored (deflated). Read by hand (the central
 * directory, then each entry, through two windows): yauzl read the 200,000 entries of the bench's
 * export in 146 s against 2.8 s for this (docs/benchmarks.md, "Reading a zip"), ten times a whole
 * import.
 */
export async function zipSource(path: string): Promise<Source> {
  const handle = await openFile(path, 'r');
  let directory: Window;
  let records: Window;
  let entries: number;
  try {
    const { size } = await handle.stat();
    [directory, records] = [new Window(handle, size), new Window(handle, size)];
    entries = (await centralDirectory(directory)).entries;
  } catch (error) {
    await handle.close();
    throw error;
  }
  async function* items(): AsyncGenerator<SourceItem> {
    try {
      let total = 0;
      for await (const entry of zipEntries(directory)) {
        if (entry.name.endsWith('/') || !entry.name.endsWith('.json')) continue;
        if (entry.encrypted) {
          yield { entry: entry.name, error: 'is encrypted' };
          continue;
        }
        if (entry.uncompressedSize > MAX_RECORD_BYTES) {
          yield { entry: entry.name, error: `is ${entry.uncompressedSize} bytes (at most ${MAX_RECORD_BYTES})` };
          continue;
        }
        if (entry.compressedSize > largestCompressed(entry)) {
          // Read as told, it would take that many bytes of memory (up to the file's size).
          yield {
            entry: entry.name,
            error: `is damaged: ${entry.compressedSize} bytes stored for ${entry.uncompressedSize} (at most ${largestCompressed(entry)})`,
          };
          continue;
        }
        total += entry.uncompressedSize;
        if (total > MAX_ZIP_BYTES) throw new SourceError(`decompresses to more than ${MAX_ZIP_BYTES / 1024 ** 3} GiB`);
        try {
          yield { entry: entry.name, data: await entryData(records, entry), method: entry.method, size: entry.uncompressedSize };
        } catch (error) {
          if (error instanceof SourceError) throw error;
          yield { entry: entry.name, error: `could not be read: ${(error as Error).message}` };
        }
      }
    } finally {
      await handle.close();
    }
  }
  return { entries, items: items() };
}

/** A zip entry's place: where its stored bytes start, as its local header says. */
export interface ZipEntryPlace {
  name: string;
  method: number;
  encrypted: boolean;
  compressedSize: number;
  uncompressedSize: number;
  dataStart: number;
}

/**
 * The first `limit` entries of a zip and how many it holds in all (for a reader that streams a
 * few large entries itself: the NVD's zipped feed files hold one each).
 */
export async function zipEntryPlaces(path: string, limit: number): Promise<{ entries: number; places: ZipEntryPlace[] }> {
  const handle = await openFile(path, 'r');
  try {
    const { size } = await handle.stat();
    const [directory, local] = [new Window(handle, size), new Window(handle, size)];
    const { entries } = await centralDirectory(directory);
    const places: ZipEntryPlace[] = [];
    for await (const entry of zipEntries(directory)) {
      if (places.length >= limit) break;
      const header = await local.range(entry.localHeader, entry.localHeader + 30);
      if (header.readUInt32LE(0) !== 0x04034b50) throw new SourceError('the zip is damaged: a local header is broken');
      const dataStart = entry.localHeader + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
      if (dataStart + entry.compressedSize > size) throw new SourceError('the zip is damaged: an entry points outside the file');
      places.push({ ...entry, dataStart });
    }
    return { entries, places };
  } finally {
    await handle.close();
  }
}

/** The `.json` files under a directory, in name order, one at a time. */
export async function directorySource(dir: string): Promise<Source> {
  const names = (await readdir(dir, { recursive: true })).filter((n) => n.endsWith('.json')).sort();
  async function* items(): AsyncGenerator<SourceItem> {
    for (const name of names) yield* fileRecord(join(dir, name));
  }
  return { entries: names.length, items: items() };
}

/** One `.json` file as one record. */
export async function* fileRecord(path: string): AsyncGenerator<SourceItem> {
  const info = await stat(path);
  if (!info.isFile()) return;
  if (info.size > MAX_RECORD_BYTES) {
    yield { entry: path, error: `is ${info.size} bytes (at most ${MAX_RECORD_BYTES})` };
    return;
  }
  const bytes = await readFile(path);
  yield { entry: path, data: bytes, method: 0, size: bytes.length };
}

/** One `.json` file as the only record. */
export function fileSource(path: string): Source {
  return { entries: 1, items: fileRecord(path) };
}
