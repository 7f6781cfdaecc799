import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it, type TestContext } from 'node:test';
import { buildHarness, type Harness, TEST_CONSOLE_SECRET } from '../helpers/app.js';
import { run } from '../../src/cli/run.js';
import { runCli } from '../helpers/cli.js';

// The NVD's CVE API 2.0 as a feed (firmware.md, Feeds): paged, incremental by lastModStartDate and
// lastModEndDate since the last import, the API key sent when NVD_API_KEY is set, and fetched
// through the feeds' SSRF guard. The API is played by a server of the test's own on 127.0.0.1.

const NVD = fileURLToPath(new URL('../fixtures/firmware/nvd/mirror/', import.meta.url));
const DNSMASQ = JSON.parse(readFileSync(join(NVD, 'CVE-2021/CVE-2021-34xx/CVE-2021-3448.json'), 'utf8'));
const records = ['CVE-2021-3448', 'CVE-2021-90001', 'CVE-2021-90002'].map((id) => ({ ...DNSMASQ, id }));

interface Asked {
  startIndex: string | null;
  lastModStartDate: string | null;
  lastModEndDate: string | null;
  apiKey: string | null;
}

/** The API, two records a page: everything, or (asked for a modification window) one changed record. */
async function nvdApi(t: TestContext): Promise<{ url: string; asked: Asked[] }> {
  const asked: Asked[] = [];
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname !== '/rest/json/cves/2.0') return response.writeHead(404).end();
    const q = (name: string) => url.searchParams.get(name);
    asked.push({
      startIndex: q('startIndex'),
      lastModStartDate: q('lastModStartDate'),
      lastModEndDate: q('lastModEndDate'),
      apiKey: (request.headers.apikey as string | undefined) ?? null,
    });
    const all = q('lastModStartDate') ? [{ ...records[1], lastModified: '2026-11-01T00:00:00.000' }] : records;
    const start = Number(q('startIndex') ?? 0);
    const page = all.slice(start, start + 2);
    const body = {
      resultsPerPage: page.length,
      startIndex: start,
      totalResults: all.length,
      format: 'NVD_CVE',
      version: '2.0',
      timestamp: '2026-11-28T00:00:00.000',
      vulnerabilities: page.map((cve) => ({ cve })),
    };
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/rest/json/cves/2.0`, asked };
}

const cli =
  (h: Harness, env: Record<string, string> = {}) =>
  (...args: string[]) =>
    runCli(args, { DATABASE_URL: h.config.databaseUrl, CONSOLE_SECRET: TEST_CONSOLE_SECRET, ...env });

/** cra-admin with its stderr a terminal, feeds at private addresses allowed, no API key. */
async function onTerminal(h: Harness, ...args: string[]) {
  let [stdout, stderr] = ['', ''];
  const code = await run(args, {
    env: { LOG_LEVEL: 'silent', DATABASE_URL: h.config.databaseUrl, CONSOLE_SECRET: TEST_CONSOLE_SECRET, FEEDS_ALLOW_PRIVATE: 'true' },
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text), isTTY: true },
  });
  return { code, stdout, stderr };
}

describe("the NVD's CVE API as a feed", () => {
  it('reads every page, then asks only for what was modified since the last import', async (t) => {
    const h = await buildHarness(t);
    const api = await nvdApi(t);
    const run = cli(h, { FEEDS_ALLOW_PRIVATE: 'true', NVD_API_KEY: 'key-123' });
    const first = await run('vuln', 'import', api.url, '--json');
    assert.equal(first.code, 0, first.stderr);
    assert.deepEqual([first.json().kind, first.json().records, first.json().new], ['nvd', 3, 3]);
    assert.deepEqual(
      api.asked.map((a) => [a.startIndex, a.lastModStartDate, a.apiKey]),
      [
        ['0', null, 'key-123'],
        ['2', null, 'key-123'],
      ],
    );
    api.asked.length = 0;
    const second = await run('vuln', 'import', api.url, '--json');
    assert.equal(second.code, 0, second.stderr);
    assert.deepEqual([second.json().records, second.json().changed], [1, 1]);
    assert.equal(api.asked.length, 1);
    const [window] = api.asked;
    assert.ok(window!.lastModStartDate && window!.lastModEndDate, 'a modification window');
    assert.ok(Date.parse(window!.lastModStartDate!) < Date.parse(window!.lastModEndDate!));
    assert.ok(Date.now() - Date.parse(window!.lastModStartDate!) < 5 * 60_000, 'since the last import');
    const feeds = (await run('vuln', 'feeds', '--json')).json() as Array<{ kind: string; records: number; source: string }>;
    assert.deepEqual(
      feeds.filter((f) => f.kind === 'nvd').map((f) => [f.records, f.source]),
      [[3, api.url]],
    );
  });

  it('refuses the API at a private address unless FEEDS_ALLOW_PRIVATE, and sends no key when none is set', async (t) => {
    const h = await buildHarness(t);
    const api = await nvdApi(t);
    const strict = await cli(h)('vuln', 'import', api.url);
    assert.equal(strict.code, 1);
    assert.match(strict.stderr, /non-public address|must use https/);
    assert.equal(api.asked.length, 0);
    // On a terminal, an import of more than a few seconds (6 s between two pages without a key) shows its progress.
    const allowed = await onTerminal(h, 'vuln', 'import', api.url);
    assert.equal(allowed.code, 0, allowed.stderr);
    assert.equal(api.asked[0]!.apiKey, null);
    assert.match(allowed.stderr, /\r.*\/rest\/json\/cves\/2\.0: 3 records read, \d+\/s, 100% done *\n$/);
    assert.match(allowed.stdout, /^nvd from .*: 3 records: 3 new/);
  });

  it('shows no progress with --json, even on a terminal', async (t) => {
    const h = await buildHarness(t);
    const api = await nvdApi(t);
    const quiet = await onTerminal(h, 'vuln', 'import', api.url, '--json');
    assert.equal(quiet.code, 0, quiet.stderr);
    assert.equal(api.asked.length, 2, 'two pages, 6 s apart');
    assert.equal(quiet.stderr, '');
    assert.equal(JSON.parse(quiet.stdout).records, 3);
  });
});
