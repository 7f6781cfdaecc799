import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { describe, it, type TestContext } from 'node:test';
import { buildHarness } from '../helpers/app.js';
import { cliOf, importRecords, productWith, RECORDS } from './helpers.js';

// Importing NVD records with `vuln import` (firmware.md, Feeds): single record files as the
// NVD's mirrors keep them, 2.0 feed files (plain and gzipped), recognised from the content;
// unchanged records skipped by digest, bad ones skipped and named, Rejected ones withdrawn; and
// the NVD filling what OSV records of the same CVE leave empty. Real records of
// test/fixtures/firmware/nvd/ (README there); every other record is written by the test.

const NVD = fileURLToPath(new URL('../fixtures/firmware/nvd/', import.meta.url));
const mirror = (cve: string) => {
  const year = cve.split('-')[1];
  const n = cve.split('-')[2]!;
  return join(NVD, 'mirror', `CVE-${year}`, `CVE-${year}-${n.slice(0, -2)}xx`, `${cve}.json`);
};
const recordOf = (cve: string) => JSON.parse(readFileSync(mirror(cve), 'utf8')) as Record<string, unknown>;

function scratch(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'cra-nvd-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A 2.0 feed file holding `records` (each the `cve` object), as the NVD writes its yearly files. */
const feedOf = (records: unknown[]) =>
  JSON.stringify({
    resultsPerPage: records.length,
    startIndex: 0,
    totalResults: records.length,
    format: 'NVD_CVE',
    version: '2.0',
    timestamp: '2026-09-30T06:00:00.000',
    vulnerabilities: records.map((cve) => ({ cve })),
  });

describe('NVD import', () => {
  it('imports the gzipped 2.0 feed file, recognised from its content, then skips every unchanged record', async (t) => {
    const h = await buildHarness(t);
    const cli = cliOf(h);
    const first = await cli('vuln', 'import', join(NVD, 'nvdcve-2.0-sample.json.gz'), '--json');
    assert.equal(first.code, 0, first.stderr);
    const summary = first.json();
    assert.equal(summary.kind, 'nvd');
    assert.equal(summary.records, 6);
    assert.deepEqual(summary.skipped, []);
    // CVE-2018-15654 is Rejected: withdrawn, counted apart.
    assert.deepEqual([summary.new, summary.changed, summary.unchanged, summary.withdrawn], [5, 0, 0, 1]);
    const again = (await cli('vuln', 'import', join(NVD, 'nvdcve-2.0-sample.json.gz'), '--json')).json();
    assert.deepEqual([again.new, again.changed, again.unchanged, again.withdrawn], [0, 0, 5, 1]);
    const rows = await h.database.db.selectFrom('nvd_record_products').selectAll().where('cve', '=', 'CVE-2023-38546').execute();
    assert.deepEqual(
      rows.map((r) => r.product_key),
      ['haxx:libcurl'],
    );
    const feeds = (await cli('vuln', 'feeds', '--json')).json() as Array<{ kind: string; records: number; newest: string | null }>;
    const nvd = feeds.find((f) => f.kind === 'nvd')!;
    assert.equal(nvd.records, 5, 'the rejected record is not held');
    assert.equal(nvd.newest, '2023-10-18T04:15:11.137');
  });

  it('reads the same record alone and inside a feed as one content, and a changed one as changed', async (t) => {
    const h = await buildHarness(t);
    const cli = cliOf(h);
    const dir = scratch(t);
    const alone = await cli('vuln', 'import', mirror('CVE-2021-3448'), '--json');
    assert.equal(alone.code, 0, alone.stderr);
    assert.equal(alone.json().kind, 'nvd');
    assert.equal(alone.json().new, 1);
    const record = recordOf('CVE-2021-3448');
    writeFileSync(join(dir, 'feed.json'), feedOf([record]));
    assert.equal((await cli('vuln', 'import', join(dir, 'feed.json'), '--json')).json().unchanged, 1);
    writeFileSync(join(dir, 'changed.json.gz'), gzipSync(feedOf([{ ...record, lastModified: '2026-01-01T00:00:00.000' }])));
    const changed = (await cli('vuln', 'import', join(dir, 'changed.json.gz'), '--json')).json();
    assert.equal(changed.kind, 'nvd');
    assert.equal(changed.changed, 1);
  });

  it('skips and names each bad record and stores the rest', async (t) => {
    const h = await buildHarness(t);
    const cli = cliOf(h);
    const dir = scratch(t);
    const good = recordOf('CVE-2021-3448');
    const badOperator = { ...recordOf('CVE-2023-38546'), configurations: [{ nodes: [{ operator: 'XOR', cpeMatch: [] }] }] };
    writeFileSync(join(dir, 'feed.json'), feedOf([good, badOperator, { id: 'not-a-cve' }, 'text']));
    const result = await cli('vuln', 'import', join(dir, 'feed.json'), '--json');
    assert.equal(result.code, 0, result.stderr);
    const summary = result.json();
    assert.equal(summary.records, 4);
    assert.equal(summary.new, 1);
    assert.deepEqual(summary.skipped, [
      { id: 'CVE-2023-38546', reason: 'configurations[0].nodes[0].operator must be AND or OR' },
      { entry: 'vulnerabilities[2]', reason: 'id must be a CVE id (CVE-YYYY-NNNN)' },
      { entry: 'vulnerabilities[3]', reason: 'the record must be a JSON object' },
    ]);
    const held = await h.database.db.selectFrom('nvd_records').select('cve').execute();
    assert.deepEqual(
      held.map((r) => r.cve),
      ['CVE-2021-3448'],
    );
  });

  it('refuses a file that is not a feed, and reads one as NVD only when told when it cannot tell', async (t) => {
    const h = await buildHarness(t);
    const cli = cliOf(h);
    const dir = scratch(t);
    writeFileSync(join(dir, 'broken.json'), '{"format": "NVD_CVE", "vulnerabilities": [{"cve": {"id": "CVE-2021-3448"}');
    const broken = await cli('vuln', 'import', join(dir, 'broken.json'));
    assert.equal(broken.code, 1);
    assert.match(broken.stderr, /broken\.json: is not an NVD feed: the JSON ends before its closing "\}"/);
    // No format, and the records come after other fields: only --kind nvd says what it is.
    const page = { resultsPerPage: 1, note: 'x'.repeat(5000), vulnerabilities: [{ cve: recordOf('CVE-2021-3448') }] };
    writeFileSync(join(dir, 'page.json'), JSON.stringify(page));
    const unknown = await cli('vuln', 'import', join(dir, 'page.json'));
    assert.equal(unknown.code, 1);
    const forced = await cli('vuln', 'import', '--kind', 'nvd', join(dir, 'page.json'), '--json');
    assert.equal(forced.code, 0, forced.stderr);
    assert.equal(forced.json().new, 1);
  });

  it("fills an OSV finding's empty summary and CVSS from the NVD record of its CVE", async (t) => {
    const h = await buildHarness(t);
    const cli = cliOf(h);
    // PYSEC-2020-103 (salt, CVE-2020-11652) carries neither a summary nor a severity.
    await importRecords(h, RECORDS.salt2);
    await productWith(h, ['pkg:pypi/salt@3000.1']);
    const before = (await cli('finding', 'list', '--org', 'acme', '--json')).json().findings;
    assert.equal(before.length, 1);
    assert.deepEqual([before[0].vulnerability, before[0].summary, before[0].cvss], ['CVE-2020-11652', null, null]);

    const imported = await cli('vuln', 'import', mirror('CVE-2020-11652'), '--json');
    assert.equal(imported.code, 0, imported.stderr);
    const [finding] = (await cli('finding', 'list', '--org', 'acme', '--json')).json().findings;
    assert.equal(finding.vulnerability, 'CVE-2020-11652', 'one finding: the NVD record joins the OSV record under its CVE');
    assert.match(finding.summary, /^An issue was discovered in SaltStack Salt before 2019\.2\.4/);
    assert.deepEqual(finding.cvss, { score: 6.5, vector: 'CVSS:3.1/AV:N/AC:L/PR:L/UI:N/S:U/C:H/I:N/A:N' });
    assert.deepEqual(finding.aliases, ['PYSEC-2020-103']);
  });

  it("keeps the OSV record's own CVSS and summary, and a group held only by a rejected record disappears", async (t) => {
    const h = await buildHarness(t);
    const cli = cliOf(h);
    const dir = scratch(t);
    // PYSEC-2017-105 (apache-atlas, CVE-2016-8752) has its own CVSS 3.0 vector.
    await importRecords(h, RECORDS.atlas);
    const atlas = {
      ...recordOf('CVE-2021-3448'),
      id: 'CVE-2016-8752',
      descriptions: [{ lang: 'en', value: 'From the NVD.' }],
    };
    writeFileSync(join(dir, 'atlas.json'), JSON.stringify(atlas));
    await cli('vuln', 'import', join(dir, 'atlas.json'));
    const group = await h.database.db
      .selectFrom('vulnerabilities')
      .selectAll()
      .where('vuln_key', '=', 'CVE-2016-8752')
      .executeTakeFirstOrThrow();
    assert.equal(group.cvss_vector, 'CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N');
    assert.equal(group.summary, 'From the NVD.', 'the OSV record has no summary of its own');

    await cli('vuln', 'import', mirror('CVE-2021-3448'));
    const shown = await cli('vuln', 'show', 'CVE-2021-3448', '--json');
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.json().summary, /dnsmasq/);
    writeFileSync(join(dir, 'rejected.json'), JSON.stringify({ ...recordOf('CVE-2021-3448'), vulnStatus: 'Rejected' }));
    const rejected = (await cli('vuln', 'import', join(dir, 'rejected.json'), '--json')).json();
    assert.equal(rejected.withdrawn, 1);
    assert.equal((await cli('vuln', 'show', 'CVE-2021-3448')).code, 1, 'no group is left');
  });
});
