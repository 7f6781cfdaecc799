import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it, type TestContext } from 'node:test';
import { buildHarness, type Harness } from '../helpers/app.js';
import { webhookParts } from '../helpers/webhooks.js';
import { cliOf, fixture, importRecords, productWith, RECORDS, SALT } from './helpers.js';

// The EUVD's dumps (firmware.md, Feeds and Readings): the mapping gives CVE-named findings their
// EUVD id; the exploited list marks findings exploited (`exploited.euvd`) and feeds the bridge to
// Article 14 as the KEV catalogues do, once per product and vulnerability whichever list names
// it first; an NVD record's cisaExploitAdd does the same as `exploited.cisa_kev` (source `nvd`).
// The samples of test/fixtures/firmware/euvd/ are ENISA's; every other row is the test's own.

const FIRMWARE = fileURLToPath(new URL('../fixtures/firmware/', import.meta.url));
const SALT_NVD = join(FIRMWARE, 'nvd/mirror/CVE-2020/CVE-2020-116xx/CVE-2020-11652.json');

function scratch(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'cra-euvd-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The platform's signals of acme, as `product cve`. */
async function raised(h: Harness): Promise<string[]> {
  const signals = (await cliOf(h)('signal', 'list', '--org', 'acme', '--json')).json() as Array<{
    source: string;
    product_sku: string;
    cve: string;
  }>;
  return signals
    .filter((s) => s.source === 'platform:vulnerability-intelligence')
    .map((s) => `${s.product_sku} ${s.cve}`)
    .sort();
}

describe('EUVD import', () => {
  it("reads ENISA's two sample dumps as kind euvd, counting rows and entries", async (t) => {
    const h = await buildHarness(t);
    const cli = cliOf(h);
    const mapping = await cli('vuln', 'import', join(FIRMWARE, 'euvd/cve-euvd-mapping.sample.csv'), '--json');
    assert.equal(mapping.code, 0, mapping.stderr);
    assert.deepEqual([mapping.json().kind, mapping.json().records, mapping.json().new], ['euvd', 1, 1]);
    const list = (await cli('vuln', 'import', join(FIRMWARE, 'euvd/kev-dump.sample.json'), '--json')).json();
    assert.deepEqual([list.kind, list.records, list.new], ['euvd', 1, 1]);
    const again = (await cli('vuln', 'import', join(FIRMWARE, 'euvd/cve-euvd-mapping.sample.csv'), '--json')).json();
    assert.equal(again.unchanged, 1);
    const feeds = (await cli('vuln', 'feeds', '--json')).json() as Array<{ kind: string; records: number; newest: string | null }>;
    assert.deepEqual(
      feeds.map((f) => f.kind),
      ['osv', 'cisa-kev', 'eu-kev', 'epss', 'nvd', 'euvd'],
    );
    const euvd = feeds.find((f) => f.kind === 'euvd')!;
    assert.deepEqual([euvd.records, euvd.newest], [2, '2025-10-06'], 'one EUVD id and one exploited entry');
  });

  it("tells how far a mapping's import has got: rows read and bytes of the file", async (t) => {
    const h = await buildHarness(t);
    const dir = scratch(t);
    const rows = Array.from({ length: 30_000 }, (_, i) => `EUVD-2024-${i + 1},CVE-2024-${String(i + 10_000)}`);
    const text = `euvd_id,cve_id\n${rows.join('\n')}\n`;
    writeFileSync(join(dir, 'mapping.csv'), text);
    const seen: Array<{ records: number; done: number | null; size: number | null }> = [];
    const [summary] = await h.vulns.importFeeds([join(dir, 'mapping.csv')], { onProgress: (p) => seen.push(p) });
    assert.equal(summary!.records, 30_000);
    assert.ok(seen.length > 1, 'told more than once');
    assert.deepEqual(seen.at(-1), { source: join(dir, 'mapping.csv'), records: 30_000, done: text.length, size: text.length });
    assert.ok(seen[0]!.done! < text.length);
  });

  it('gives a finding its EUVD id from the mapping, and names the rows it cannot read', async (t) => {
    const h = await buildHarness(t);
    const cli = cliOf(h);
    const dir = scratch(t);
    await importRecords(h, RECORDS.salt2);
    await productWith(h, [SALT]);
    writeFileSync(
      join(dir, 'mapping.csv'),
      'euvd_id,cve_id\r\nEUVD-2020-9999,CVE-2020-11652\r\nnot-an-id,CVE-2020-1\r\nEUVD-2021-9696,CVE-2021-22555\r\nEUVD-2020-1,CVE-2020-1,x\r\n',
    );
    const summary = (await cli('vuln', 'import', join(dir, 'mapping.csv'), '--json')).json();
    assert.equal(summary.records, 4);
    assert.equal(summary.new, 2);
    assert.deepEqual(summary.skipped, [
      { entry: 'line 3', reason: 'euvd_id must be an EUVD id' },
      { entry: 'line 5', reason: 'has 3 fields, not 2' },
    ]);
    const [finding] = (await cli('finding', 'list', '--org', 'acme', '--json')).json().findings;
    assert.equal(finding.euvd, 'EUVD-2020-9999');
    assert.equal(finding.exploited.euvd, null);
  });

  it('marks a finding exploited from the EUVD list and raises one signal, whichever list names it first', async (t) => {
    const h = await buildHarness(t);
    const cli = cliOf(h);
    const dir = scratch(t);
    await importRecords(h, RECORDS.salt2);
    await productWith(h, [SALT]);
    await webhookParts(h).webhooks.addEndpoint({ org: 'acme', url: 'http://127.0.0.1:9/hook', events: 'finding.exploited' });
    assert.deepEqual(await raised(h), []);
    const list = [{ cveId: 'CVE-2020-11652', euvdId: 'EUVD-2020-9999', dateAdded: '2025-10-06', sources: ['cisa_kev', 'eu_csirts'] }];
    writeFileSync(join(dir, 'exploited.json'), JSON.stringify(list));
    const imported = (await cli('vuln', 'import', join(dir, 'exploited.json'), '--json')).json();
    assert.deepEqual([imported.kind, imported.records], ['euvd', 1]);
    const [finding] = (await cli('finding', 'list', '--org', 'acme', '--json')).json().findings;
    assert.deepEqual(finding.exploited.euvd, {
      date_added: '2025-10-06',
      sources: ['cisa_kev', 'eu_csirts'],
      euvd: 'EUVD-2020-9999',
      cve: 'CVE-2020-11652',
    });
    assert.equal(finding.euvd, 'EUVD-2020-9999');
    assert.deepEqual(await raised(h), ['GW-1 CVE-2020-11652']);
    // The signal names the list, and the webhook event carries its entry.
    const [signal] = (await cli('signal', 'list', '--org', 'acme', '--json')).json() as Array<{ description: string }>;
    assert.match(signal!.description, /^CVE-2020-11652 is listed as actively exploited \(EUVD\)\./);
    const event = await h.database.db
      .selectFrom('webhook_events')
      .select('payload')
      .where('type', '=', 'finding.exploited')
      .executeTakeFirstOrThrow();
    assert.deepEqual((JSON.parse(event.payload) as { data: { exploited: { euvd: unknown } } }).data.exploited.euvd, finding.exploited.euvd);
    // CISA's catalogue names it too: still one signal.
    await cli('vuln', 'import', fixture('cisa-kev.json'));
    assert.deepEqual(await raised(h), ['GW-1 CVE-2020-11652']);
    const listed = (await cli('finding', 'list', '--org', 'acme', '--exploited', '--json')).json();
    assert.equal(listed.count, 1);

    // Gone from the list (and CISA's catalogue still naming it): exploited.euvd is null again.
    writeFileSync(join(dir, 'other.json'), JSON.stringify([{ ...list[0], cveId: 'CVE-2021-22555', euvdId: 'EUVD-2021-9696' }]));
    await cli('vuln', 'import', join(dir, 'other.json'));
    const [after] = (await cli('finding', 'list', '--org', 'acme', '--json')).json().findings;
    assert.equal(after.exploited.euvd, null);
    assert.notEqual(after.exploited.cisa_kev, null);
  });

  it("marks a finding exploited from its NVD record's cisaExploitAdd, CISA's catalogue not imported", async (t) => {
    const h = await buildHarness(t);
    const cli = cliOf(h);
    await importRecords(h, RECORDS.salt2);
    await productWith(h, [SALT]);
    const record = JSON.parse(readFileSync(SALT_NVD, 'utf8')) as { cisaExploitAdd: string };
    await cli('vuln', 'import', SALT_NVD);
    const [finding] = (await cli('finding', 'list', '--org', 'acme', '--json')).json().findings;
    assert.deepEqual(finding.exploited.cisa_kev, {
      date_added: record.cisaExploitAdd,
      ransomware: null,
      cve: 'CVE-2020-11652',
      source: 'nvd',
    });
    assert.deepEqual(await raised(h), ['GW-1 CVE-2020-11652']);
    // CISA's own entry takes its place, and raises nothing more.
    await cli('vuln', 'import', fixture('cisa-kev.json'));
    const [again] = (await cli('finding', 'list', '--org', 'acme', '--json')).json().findings;
    assert.equal(again.exploited.cisa_kev.source, undefined);
    assert.deepEqual(await raised(h), ['GW-1 CVE-2020-11652']);
  });
});
