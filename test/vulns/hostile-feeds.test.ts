import assert from 'node:assert/strict';
import { createWriteStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, it, type TestContext } from 'node:test';
import yazl from 'yazl';
import { buildHarness, type Harness, TEST_CONSOLE_SECRET } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';

// What a feed can hold that it should not: broken and hostile records, zip bombs, deep nesting,
// huge strings, bad EPSS lines; and a feed served over HTTP, fetched conditionally. Each test
// has its own database, directory and server.

const record = (id: string, extra: Record<string, unknown> = {}) => ({
  schema_version: '1.6.0',
  id,
  modified: '2026-01-01T00:00:00Z',
  published: '2026-01-01T00:00:00Z',
  aliases: [],
  summary: `${id} summary`,
  affected: [
    { package: { ecosystem: 'npm', name: 'left-pad' }, ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '1.3.1' }] }] },
  ],
  ...extra,
});

/** A zip of `entries` (name → content), written to `path`. */
function zipOf(path: string, entries: Array<[string, string | Buffer]>, compress = true): Promise<void> {
  return new Promise((resolve, reject) => {
    const zip = new yazl.ZipFile();
    for (const [name, content] of entries) zip.addBuffer(Buffer.from(content), name, { compress });
    zip.end();
    zip.outputStream.pipe(createWriteStream(path)).on('close', resolve).on('error', reject);
  });
}

/** A directory of the test's own, removed when it ends. */
function scratch(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'cra-feeds-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** cra-admin on the harness's database, feeds at private addresses allowed (the test's own server). */
const cliWithPrivateFeeds =
  (h: Harness) =>
  (...args: string[]) =>
    runCli(args, { DATABASE_URL: h.config.databaseUrl, CONSOLE_SECRET: TEST_CONSOLE_SECRET, FEEDS_ALLOW_PRIVATE: 'true' });

/** An HTTP server of the test's own serving one OSV record as a feed (ETag "v1"), with how many requests it answered. */
async function feedServer(t: TestContext): Promise<{ url: string; served(): number }> {
  let served = 0;
  const body = JSON.stringify(record('HTTP-1'));
  const server: Server = createServer((request, response) => {
    served++;
    if (request.url === '/redirect') return response.writeHead(302, { location: '/feed.json' }).end();
    if (request.url === '/huge') return response.writeHead(200, { 'content-length': String(3 * 1024 ** 3) }).end();
    if (request.headers['if-none-match'] === '"v1"') return response.writeHead(304).end();
    response.writeHead(200, { 'content-type': 'application/json', etag: '"v1"' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, served: () => served };
}

describe('hostile and broken feeds', () => {
  it('skips and names each bad record, stores the good ones, and never stores half a record', async (t) => {
    const h = await buildHarness(t);
    const cli = cliWithPrivateFeeds(h);
    const path = join(scratch(t), 'mixed.zip');
    await zipOf(path, [
      ['GOOD-1.json', JSON.stringify(record('GOOD-1'))],
      [
        'BAD-EVENTS.json',
        JSON.stringify(
          record('BAD-EVENTS', {
            affected: [{ package: { ecosystem: 'npm', name: 'x' }, ranges: [{ type: 'SEMVER', events: [{ fixed: 1 }] }] }],
          }),
        ),
      ],
      [
        'BAD-RANGES.json',
        JSON.stringify(record('BAD-RANGES', { affected: [{ package: { ecosystem: 'npm', name: 'x' }, ranges: 'all' }] })),
      ],
      ['not-json.json', '{"id": "TRUNC'],
      ['latin1.json', Buffer.from([0x7b, 0x22, 0x69, 0x64, 0x22, 0x3a, 0x22, 0xe9, 0x22, 0x7d])],
      ['deep.json', `${'['.repeat(100_000)}${']'.repeat(100_000)}`],
      ['huge.json', JSON.stringify(record('HUGE-1', { details: 'x'.repeat(300_000) }))],
      ['poison.json', '{"id":"POISON-1","__proto__":{"polluted":true},"affected":[]}'],
      ['README.txt', 'not a record'],
      ['GOOD-2.json', JSON.stringify(record('GOOD-2'))],
    ]);
    const result = await cli('vuln', 'import', path, '--json');
    assert.equal(result.code, 0, result.stderr);
    const summary = result.json();
    assert.equal(summary.new, 2);
    assert.equal(summary.records, 9, 'every .json entry read, the README left alone');
    const reasons = Object.fromEntries(
      summary.skipped.map((s: { id?: string; entry?: string; reason: string }) => [s.id ?? s.entry, s.reason]),
    );
    assert.match(reasons['BAD-EVENTS'], /affected\[0\]\.ranges\[0\]\.events\[0\]\.fixed must be a non-empty string/);
    assert.match(reasons['BAD-RANGES'], /affected\[0\]\.ranges must be an array/);
    assert.match(reasons['not-json.json'], /is not valid JSON/);
    assert.match(reasons['latin1.json'], /not UTF-8/);
    assert.match(reasons['deep.json'], /is nested more than 64 levels deep/);
    assert.match(reasons['HUGE-1'], /string of 300000 characters/);
    assert.match(reasons['POISON-1'], /prototype-poisoning/);
    assert.equal(({} as { polluted?: boolean }).polluted, undefined);
    const stored = await h.database.db.selectFrom('vuln_records').select('id').orderBy('id').execute();
    assert.deepEqual(
      stored.map((r) => r.id),
      ['GOOD-1', 'GOOD-2'],
    );
  });

  it('refuses a zip bomb entry by entry, and a file that is no zip as a whole', async (t) => {
    const h = await buildHarness(t);
    const cli = cliWithPrivateFeeds(h);
    const dir = scratch(t);
    const bomb = join(dir, 'bomb.zip');
    // 5 MiB of one byte compresses to a few KiB: larger than any record may be.
    await zipOf(bomb, [['BOMB.json', Buffer.alloc(5 * 1024 * 1024, 0x20)]]);
    const summary = (await cli('vuln', 'import', bomb, '--json')).json();
    assert.equal(summary.skipped.length, 1);
    assert.match(summary.skipped[0].reason, /is 5242880 bytes \(at most 4194304\)/);

    const fake = join(dir, 'fake.zip');
    writeFileSync(fake, Buffer.concat([Buffer.from('PK\u0003\u0004'), Buffer.alloc(100)]));
    const broken = await cli('vuln', 'import', fake);
    assert.equal(broken.code, 1);
    assert.match(broken.stderr, /not a readable zip/);
  });

  it('counts a withdrawn record as withdrawn, an unchanged one as unchanged and a changed one as changed', async (t) => {
    const h = await buildHarness(t);
    const cli = cliWithPrivateFeeds(h);
    const dir = scratch(t);
    const write = (name: string, content: object) => writeFileSync(join(dir, name), JSON.stringify(content));
    write('GOOD-1.json', record('GOOD-1'));
    write('GOOD-2.json', record('GOOD-2'));
    write('GOOD-3.json', record('GOOD-3'));
    assert.equal((await cli('vuln', 'import', dir, '--json')).json().new, 3);
    write('GOOD-2.json', record('GOOD-2', { withdrawn: '2026-02-01T00:00:00Z' }));
    write('GOOD-3.json', record('GOOD-3', { summary: 'changed' }));
    write('GOOD-4.json', record('GOOD-4'));
    const summary = (await cli('vuln', 'import', dir, '--json')).json();
    assert.deepEqual(
      { records: summary.records, new: summary.new, changed: summary.changed, unchanged: summary.unchanged, withdrawn: summary.withdrawn },
      { records: 4, new: 1, changed: 1, unchanged: 1, withdrawn: 1 },
    );
  });

  it('reads EPSS scores, gzip or plain, and names the lines it cannot read', async (t) => {
    const h = await buildHarness(t);
    const cli = cliWithPrivateFeeds(h);
    const dir = scratch(t);
    const csv = [
      '#model_version:v2025.03.14,score_date:2026-03-28T12:55:00Z',
      'cve,epss,percentile',
      'CVE-2021-44228,0.94358,0.99960',
      'CVE-2020-36567,0.00100,0.20000',
      'CVE-2099-1,2,0.5',
      'garbage',
    ].join('\n');
    const path = join(dir, 'epss.csv.gz');
    writeFileSync(path, gzipSync(csv));
    const summary = (await cli('vuln', 'import', path, '--json')).json();
    assert.equal(summary.kind, 'epss');
    assert.equal(summary.new, 2);
    assert.deepEqual(
      summary.skipped.map((s: { entry: string }) => s.entry),
      ['line 5', 'line 6'],
    );
    const row = await h.database.db.selectFrom('epss_scores').selectAll().where('cve', '=', 'CVE-2021-44228').executeTakeFirstOrThrow();
    assert.deepEqual(row, { cve: 'CVE-2021-44228', score: 0.94358, percentile: 0.9996, score_date: '2026-03-28T12:55:00Z' });
    const plain = join(dir, 'epss.csv');
    writeFileSync(plain, csv);
    const again = (await cli('vuln', 'import', plain, '--json')).json();
    assert.equal(again.unchanged, 2);

    const bomb = join(dir, 'bomb.csv.gz');
    writeFileSync(bomb, gzipSync(Buffer.alloc(8 * 1024 * 1024, 0x41)));
    const refused = await cli('vuln', 'import', '--kind', 'epss', bomb);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /a line longer than 1024 bytes/);
  });

  describe('a feed served over HTTP', () => {
    it('fetches it, then asks conditionally and reports an unchanged feed without reading it', async (t) => {
      const h = await buildHarness(t);
      const cli = cliWithPrivateFeeds(h);
      const { url, served } = await feedServer(t);
      const first = (await cli('vuln', 'import', `${url}/feed.json`, '--json')).json();
      assert.equal(first.new, 1);
      const second = (await cli('vuln', 'import', `${url}/feed.json`, '--json')).json();
      assert.equal(second.records, 0);
      assert.equal(served(), 2);
      const moved = (await cli('vuln', 'import', `${url}/redirect`, '--json')).json();
      assert.equal(moved.kind, 'osv');
    });

    it('refuses private addresses unless FEEDS_ALLOW_PRIVATE, plain http to the internet, and oversized bodies', async (t) => {
      const h = await buildHarness(t);
      const { url } = await feedServer(t);
      const strict = await runCli(['vuln', 'import', `${url}/feed.json`], { DATABASE_URL: h.config.databaseUrl });
      assert.equal(strict.code, 1);
      assert.match(strict.stderr, /a feed URL must use https/);
      const metadata = await runCli(['vuln', 'import', 'https://169.254.169.254/latest'], { DATABASE_URL: h.config.databaseUrl });
      assert.equal(metadata.code, 1);
      assert.match(metadata.stderr, /non-public address/);
      const huge = await cliWithPrivateFeeds(h)('vuln', 'import', `${url}/huge`);
      assert.equal(huge.code, 1);
      assert.match(huge.stderr, /is 3221225472 bytes \(at most 2147483648\)/);
    });
  });
});
