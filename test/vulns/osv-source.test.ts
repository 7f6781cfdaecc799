import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import yazl from 'yazl';
import { zipSource } from '../../src/vulns/feeds/osv-source.js';

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
