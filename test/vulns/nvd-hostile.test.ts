import assert from 'node:assert/strict';
import { cpSync, createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { describe, it, type TestContext } from 'node:test';
import yazl from 'yazl';
import { buildHarness } from '../helpers/app.js';
import { cliOf } from './helpers.js';

// The NVD's other shapes and what an NVD input can hold that it should not (firmware.md, Feeds:
// "hostile files are refused with a clear message"): zipped feed files and directories of single
// records as mirrors keep them; compression bombs, records too large or too deep, damaged
// archives. Each test has its own database and directory.

const NVD = fileURLToPath(new URL('../fixtures/firmware/nvd/', import.meta.url));
const DNSMASQ = JSON.parse(readFileSync(join(NVD, 'mirror/CVE-2021/CVE-2021-34xx/CVE-2021-3448.json'), 'utf8'));

function scratch(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'cra-nvd-hostile-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A 2.0 feed file's text holding `items` (as given) in `vulnerabilities`, with `padding` blanks before it. */
const feedText = (items: unknown[], padding = 0) =>
  `{"format": "NVD_CVE", "version": "2.0", "timestamp": "2026-09-30T06:00:00.000",${' '.repeat(padding)}"vulnerabilities": [${items.map((i) => (typeof i === 'string' ? i : JSON.stringify(i))).join(',')}]}`;

function zipOf(path: string, entries: Array<[string, string | Buffer]>, compress = true): Promise<void> {
  return new Promise((resolve, reject) => {
    const zip = new yazl.ZipFile();
    for (const [name, content] of entries) zip.addBuffer(Buffer.from(content), name, { compress });
    zip.end();
    zip.outputStream.pipe(createWriteStream(path)).on('close', resolve).on('error', reject);
  });
}

describe('NVD inputs: zips, directories, hostile files', () => {
  it('imports a zipped feed file, deflated or stored, recognised from its content', async (t) => {
    const h = await buildHarness(t);
    const cli = cliOf(h);
    const dir = scratch(t);
    const other = { ...DNSMASQ, id: 'CVE-2021-99999' };
    await zipOf(join(dir, 'nvdcve-2.0-2021.json.zip'), [['nvdcve-2.0-2021.json', feedText([{ cve: DNSMASQ }, { cve: other }])]]);
    const deflated = await cli('vuln', 'import', join(dir, 'nvdcve-2.0-2021.json.zip'), '--json');
    assert.equal(deflated.code, 0, deflated.stderr);
    assert.deepEqual([deflated.json().kind, deflated.json().records, deflated.json().new], ['nvd', 2, 2]);
    await zipOf(join(dir, 'stored.zip'), [['feed.json', feedText([{ cve: DNSMASQ }])]], false);
    const stored = (await cli('vuln', 'import', join(dir, 'stored.zip'), '--json')).json();
    assert.deepEqual([stored.kind, stored.unchanged], ['nvd', 1]);
  });

  it('imports a directory of single records laid out as the mirror keeps them, naming a bad file by its path', async (t) => {
    const h = await buildHarness(t);
    const cli = cliOf(h);
    const dir = scratch(t);
    cpSync(join(NVD, 'mirror'), dir, { recursive: true });
    writeFileSync(join(dir, 'CVE-2023', 'broken.json'), '{"vulnStatus": ');
    const result = await cli('vuln', 'import', dir, '--json');
    assert.equal(result.code, 0, result.stderr);
    const summary = result.json();
    assert.equal(summary.kind, 'nvd');
    assert.equal(summary.records, 11);
    assert.deepEqual([summary.new, summary.withdrawn], [9, 1]);
    assert.deepEqual(summary.skipped, [{ entry: join('CVE-2023', 'broken.json'), reason: 'is not valid JSON' }]);
  });

  it('skips and names a record too large or too deep, and keeps the rest', async (t) => {
    const h = await buildHarness(t);
    const cli = cliOf(h);
    const dir = scratch(t);
    const huge = { cve: { ...DNSMASQ, id: 'CVE-2021-99998', descriptions: [{ lang: 'en', value: 'x'.repeat(5 * 1024 * 1024) }] } };
    const deep = `{"cve": ${'['.repeat(100)}${']'.repeat(100)}}`;
    const long = { cve: { ...DNSMASQ, id: 'CVE-2021-99997', descriptions: [{ lang: 'en', value: 'y'.repeat(300_000) }] } };
    writeFileSync(join(dir, 'feed.json'), feedText([huge, deep, { cve: DNSMASQ }, long]));
    const summary = (await cli('vuln', 'import', join(dir, 'feed.json'), '--json')).json();
    assert.equal(summary.records, 4);
    assert.equal(summary.new, 1);
    assert.deepEqual(summary.skipped, [
      { entry: 'vulnerabilities[0]', reason: 'is larger than 4194304 bytes' },
      { entry: 'vulnerabilities[1]', reason: 'is nested more than 64 levels deep' },
      { id: 'CVE-2021-99997', reason: 'holds a string of 300000 characters (at most 262144)' },
    ]);
  });

  it('refuses a compression bomb, gzipped or zipped, and a damaged archive as a whole', async (t) => {
    const h = await buildHarness(t);
    const cli = cliOf(h);
    const dir = scratch(t);
    const padded = feedText([{ cve: DNSMASQ }], 40 * 1024 * 1024);
    writeFileSync(join(dir, 'bomb.json.gz'), gzipSync(padded));
    const gz = await cli('vuln', 'import', join(dir, 'bomb.json.gz'));
    assert.equal(gz.code, 1);
    assert.match(gz.stderr, /bomb\.json\.gz: decompresses to more than 200 times its size: refused as a compression bomb/);
    await zipOf(join(dir, 'bomb.zip'), [['feed.json', padded]]);
    const zip = await cli('vuln', 'import', join(dir, 'bomb.zip'));
    assert.equal(zip.code, 1);
    assert.match(zip.stderr, /bomb\.zip: feed\.json: decompresses to more than 200 times its size/);
    assert.equal((await h.database.db.selectFrom('nvd_records').select('cve').execute()).length, 0, 'nothing of a bomb is kept');

    const good = gzipSync(feedText([{ cve: DNSMASQ }, { cve: { ...DNSMASQ, id: 'CVE-2021-99996' } }]));
    writeFileSync(join(dir, 'cut.json.gz'), good.subarray(0, good.length - 40));
    const cut = await cli('vuln', 'import', join(dir, 'cut.json.gz'));
    assert.equal(cut.code, 1);
    assert.match(cut.stderr, /cut\.json\.gz: (is not readable: its compressed data is damaged|is not an NVD feed: the JSON ends before)/);
  });
});
