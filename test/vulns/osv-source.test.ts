import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import yazl from 'yazl';
import { deflateRawSync } from 'node:zlib';
import { MAX_ZIP_ENTRIES, SourceError, type SourceItem, zipSource } from '../../src/vulns/feeds/osv-source.js';
import { prepareRecord } from '../../src/vulns/feeds/prepare-record.js';

// The zip reader reads the directory and the entries each through one window of the file,
// read into the same buffer every time: what it hands on must be each entry's own bytes, however
// the entries and directory records fall across windows.

describe('zipSource', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'cra-zip-source-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('hands on every entry intact across many windows, and an entry larger than a window', async () => {
    // 600 stored entries of 1–9 KB of random bytes (~3 MB: several windows of entries, and a
    // directory of 600 records with long names), with a 1.5 MB entry among them.
    const entries: Array<[string, Buffer]> = [];
    for (let i = 0; i < 600; i++) {
      const name = `${'nested/'.repeat(i % 5)}RECORD-${String(i).padStart(4, '0')}-${'x'.repeat(i % 90)}.json`;
      entries.push([name, i === 300 ? randomBytes(1_500_000) : randomBytes(1_000 + ((i * 137) % 8_000))]);
    }
    const path = join(dir, 'many.zip');
    await new Promise<void>((resolve, reject) => {
      const zip = new yazl.ZipFile();
      for (const [name, content] of entries) zip.addBuffer(content, name, { compress: false });
      zip.end();
      zip.outputStream.pipe(createWriteStream(path)).on('close', resolve).on('error', reject);
    });

    const source = await zipSource(path);
    assert.equal(source.entries, 600);
    const read: Array<[string, Uint8Array]> = [];
    for await (const item of source.items) {
      assert.ok(!('error' in item), `${item.entry}: ${'error' in item ? item.error : ''}`);
      // Held across the reads of the entries after it, as the import's batches hold them.
      read.push([item.entry, item.data]);
      assert.equal(item.method, 0);
      assert.equal(item.size, item.data.length);
    }
    assert.equal(read.length, entries.length);
    for (let i = 0; i < entries.length; i++) {
      assert.equal(read[i]![0], entries[i]![0]);
      assert.ok(Buffer.from(read[i]![1]).equals(entries[i]![1]), `entry ${i} (${entries[i]![1].length} bytes) read intact`);
    }
  });

  it('reads a directory larger than a window, its records falling across windows', async () => {
    // 12,000 names of ~130 characters: a central directory of ~2 MB.
    const names = Array.from({ length: 12_000 }, (_, i) => `GHSA-${String(i).padStart(5, '0')}-${'long-name-'.repeat(12)}${i % 7}.json`);
    const path = join(dir, 'wide.zip');
    await new Promise<void>((resolve, reject) => {
      const zip = new yazl.ZipFile();
      for (const [i, name] of names.entries()) zip.addBuffer(Buffer.from(`{"n":${i}}`), name, { compress: i % 2 === 0 });
      zip.end();
      zip.outputStream.pipe(createWriteStream(path)).on('close', resolve).on('error', reject);
    });
    const source = await zipSource(path);
    let n = 0;
    for await (const item of source.items) {
      assert.ok(!('error' in item), `${item.entry}: ${'error' in item ? item.error : ''}`);
      assert.equal(item.entry, names[n]);
      assert.equal(item.size, Buffer.byteLength(`{"n":${n}}`));
      n++;
    }
    assert.equal(n, names.length);
  });

  it('refuses an entry whose directory record claims more stored bytes than its size allows', async () => {
    const path = join(dir, 'claims.zip');
    await new Promise<void>((resolve, reject) => {
      const zip = new yazl.ZipFile();
      zip.addBuffer(Buffer.from('{"a":1}'), 'A.json', { compress: false });
      zip.addBuffer(Buffer.from(`{"b":"${'x'.repeat(100_000)}"}`), 'B.json', { compress: false });
      zip.addBuffer(Buffer.from('{"c":3}'.repeat(1_000)), 'C.json', { compress: true });
      zip.end();
      zip.outputStream.pipe(createWriteStream(path)).on('close', resolve).on('error', reject);
    });
    // A.json's directory record says 90,000 stored bytes for its 7: read as told, memory for them.
    const bytes = readFileSync(path);
    const at = bytes.indexOf(Buffer.concat([Buffer.from([0x50, 0x4b, 0x01, 0x02])]));
    assert.equal(bytes.toString('latin1', at + 46, at + 46 + 6), 'A.json');
    bytes.writeUInt32LE(90_000, at + 20);
    writeFileSync(path, bytes);

    const items = [];
    for await (const item of (await zipSource(path)).items) items.push(item);
    assert.deepEqual(
      items.map((i) => ('error' in i ? [i.entry, i.error] : [i.entry, i.size])),
      [
        ['A.json', 'is damaged: 90000 bytes stored for 7 (at most 7)'],
        ['B.json', 100_008],
        ['C.json', 7_000],
      ],
    );
  });
});

/** A zip of `entries` (name → content) at `path`. */
function writeZip(
  path: string,
  entries: Array<[string, string | Buffer]>,
  options: { compress?: boolean; zip64?: boolean } = {},
): Promise<void> {
  return new Promise((resolve, reject) => {
    const zip = new yazl.ZipFile();
    for (const [name, content] of entries) zip.addBuffer(Buffer.from(content), name, { compress: options.compress ?? false });
    zip.end({ forceZip64Format: options.zip64 ?? false, comment: '' });
    zip.outputStream.pipe(createWriteStream(path)).on('close', resolve).on('error', reject);
  });
}

/** Where each central directory record of a (small, plain) zip starts. */
function directoryRecords(bytes: Buffer): number[] {
  const end = bytes.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const records: number[] = [];
  for (let at = bytes.readUInt32LE(end + 16), n = bytes.readUInt16LE(end + 10); n > 0; n--) {
    records.push(at);
    at += 46 + bytes.readUInt16LE(at + 28) + bytes.readUInt16LE(at + 30) + bytes.readUInt16LE(at + 32);
  }
  return records;
}

/** The import refuses the whole input with exactly `message` (a SourceError). */
const refusedAsAWhole = (message: string) => (error: unknown) => {
  assert.ok(error instanceof SourceError, String(error));
  assert.equal(error.message, message);
  return true;
};

async function readAll(path: string): Promise<SourceItem[]> {
  const items: SourceItem[] = [];
  for await (const item of (await zipSource(path)).items) items.push(item);
  return items;
}

// Every refusal of a hostile or broken archive, each with its message (docs/vulnerabilities.md,
// "Streamed and bounded"): a zip the whole import refuses, or an entry it skips and names.
describe('zipSource refuses', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'cra-zip-refusals-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('a zip that says it holds more entries than it may', async () => {
    const path = join(dir, 'many.zip');
    await writeZip(path, [['A.json', '{}']], { zip64: true });
    const bytes = readFileSync(path);
    // The zip64 end record holds the count; the classic one says "see zip64".
    const zip64End = bytes.lastIndexOf(Buffer.from([0x50, 0x4b, 0x06, 0x06]));
    bytes.writeBigUInt64LE(BigInt(MAX_ZIP_ENTRIES + 1), zip64End + 24);
    bytes.writeBigUInt64LE(BigInt(MAX_ZIP_ENTRIES + 1), zip64End + 32);
    const end = bytes.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
    bytes.writeUInt16LE(0xffff, end + 8);
    bytes.writeUInt16LE(0xffff, end + 10);
    writeFileSync(path, bytes);
    await assert.rejects(readAll(path), refusedAsAWhole(`holds ${MAX_ZIP_ENTRIES + 1} entries (at most ${MAX_ZIP_ENTRIES})`));
  });

  it('a zip whose entries together would decompress to more than 8 GiB (a bomb of many small-looking entries)', async () => {
    const path = join(dir, 'bomb.zip');
    // 2,049 entries that each claim 4 MiB, the most a record may be: 8 GiB and 4 MiB in all.
    await writeZip(
      path,
      Array.from({ length: 2_049 }, (_, i): [string, string] => [`R-${i}.json`, '{}']),
    );
    const bytes = readFileSync(path);
    for (const at of directoryRecords(bytes)) bytes.writeUInt32LE(4 * 1024 * 1024, at + 24);
    writeFileSync(path, bytes);
    let read = 0;
    await assert.rejects(
      (async () => {
        for await (const _ of (await zipSource(path)).items) read++;
      })(),
      refusedAsAWhole('decompresses to more than 8 GiB'),
    );
    assert.equal(read, 2_048, 'the entries before the bound were read');
  });

  it('a zip whose directory is broken, as a whole', async () => {
    const path = join(dir, 'broken.zip');
    await writeZip(path, [
      ['A.json', '{}'],
      ['B.json', '{}'],
    ]);
    const bytes = readFileSync(path);
    bytes.writeUInt32LE(0, directoryRecords(bytes)[1]!);
    writeFileSync(path, bytes);
    await assert.rejects(readAll(path), refusedAsAWhole('the zip is damaged: a directory record is broken'));
  });

  it('an encrypted entry and one whose local header is broken, each named, the others read', async () => {
    const path = join(dir, 'entries.zip');
    await writeZip(path, [
      ['A.json', '{"a":1}'],
      ['LOCKED.json', '{"b":2}'],
      ['BROKEN.json', '{"c":3}'],
    ]);
    const bytes = readFileSync(path);
    const [, locked, broken] = directoryRecords(bytes);
    bytes.writeUInt16LE(bytes.readUInt16LE(locked! + 8) | 1, locked! + 8);
    bytes.writeUInt32LE(0, bytes.readUInt32LE(broken! + 42));
    writeFileSync(path, bytes);
    const items = await readAll(path);
    assert.deepEqual(
      items.map((i) => ('error' in i ? [i.entry, i.error] : [i.entry, Buffer.from(i.data).toString()])),
      [
        ['A.json', '{"a":1}'],
        ['LOCKED.json', 'is encrypted'],
        ['BROKEN.json', 'could not be read: its local header is broken'],
      ],
    );
  });

  it('an entry of another compression method, one that inflates to another size than its header says, damaged data, and a bomb', () => {
    const deflated = deflateRawSync(Buffer.from('{"id":"X-1"}'));
    const skipped = (data: Uint8Array, method: number, size: number) => {
      const prepared = prepareRecord({ entry: 'E.json', data, method, size });
      assert.ok('skipped' in prepared);
      return prepared.skipped.reason;
    };
    assert.equal(skipped(deflated, 12, 12), 'could not be read: it uses compression method 12 (only stored and deflated are read)');
    assert.equal(skipped(deflated, 8, 10), 'could not be read: it inflates to 12 bytes, not the 10 its header says');
    assert.equal(skipped(Buffer.from([0xff, 0xff, 0xff]), 8, 12), 'could not be read: its data is damaged');
    const bomb = deflateRawSync(Buffer.alloc(5 * 1024 * 1024, 0x20));
    assert.equal(skipped(bomb, 8, 100), 'could not be read: it inflates to more than 4194304 bytes');
  });
});
