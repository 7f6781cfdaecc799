import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { describe, it } from 'node:test';
import { buildHarness } from '../helpers/app.js';
import { cliOf } from './helpers.js';

// A large NVD feed (firmware.md, Feeds): from 2,000 records on, an import's records are parsed,
// checked and digested in the feed imports' worker threads, as OSV's are. What a small feed
// guarantees holds there too: bad records skipped and named in the input's order, the rest
// stored, and a second import of the same feed changes nothing. A record whose parse needs more
// memory than a thread's small heap is prepared on the main thread instead.

const NVD = fileURLToPath(new URL('../fixtures/firmware/nvd/', import.meta.url));
const DNSMASQ = JSON.parse(readFileSync(join(NVD, 'mirror/CVE-2021/CVE-2021-34xx/CVE-2021-3448.json'), 'utf8'));
const COUNT = 2_600;
const idOf = (i: number) => `CVE-2021-${20_000 + i}`;
const badOperator = (i: number) =>
  JSON.stringify({ cve: { ...DNSMASQ, id: idOf(i), configurations: [{ nodes: [{ operator: 'XOR', cpeMatch: [] }] }] } });
/** ~3.9 MB of empty objects: within the record bound, but ~100 MB once parsed and canonicalised. */
const dense = (i: number) =>
  `{"cve": {"id": "${idOf(i)}", "configurations": [{"nodes": [{"cpeMatch": [${Array(1_300_000).fill('{}').join(',')}]}]}]}}`;

describe('NVD import of a large feed', () => {
  it('prepares records in worker threads, naming bad ones in order and storing the rest, then skips them all as unchanged', async (t) => {
    const h = await buildHarness(t);
    const cli = cliOf(h);
    const dir = mkdtempSync(join(tmpdir(), 'cra-nvd-pool-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const items = Array.from({ length: COUNT }, (_, i) => {
      if (i === 10 || i === 2_100) return badOperator(i);
      if (i === 2_300) return `{"cve": ${'['.repeat(100)}${']'.repeat(100)}}`;
      if (i === 2_400) return dense(i);
      return JSON.stringify({ cve: { ...DNSMASQ, id: idOf(i) } });
    });
    const feed = `{"format": "NVD_CVE", "version": "2.0", "vulnerabilities": [${items.join(',')}]}`;
    writeFileSync(join(dir, 'nvdcve-2.0-2021.json.gz'), gzipSync(feed));

    const skipped = [
      { id: idOf(10), reason: 'configurations[0].nodes[0].operator must be AND or OR' },
      { id: idOf(2_100), reason: 'configurations[0].nodes[0].operator must be AND or OR' },
      { entry: 'vulnerabilities[2300]', reason: 'is nested more than 64 levels deep' },
      { id: idOf(2_400), reason: 'configurations[0].nodes[0].cpeMatch[0].vulnerable must be true or false' },
    ];
    const first = await cli('vuln', 'import', join(dir, 'nvdcve-2.0-2021.json.gz'), '--json');
    assert.equal(first.code, 0, first.stderr);
    const summary = first.json();
    assert.deepEqual([summary.kind, summary.records, summary.new, summary.withdrawn], ['nvd', COUNT, COUNT - 4, 0]);
    assert.deepEqual(summary.skipped, skipped);
    const held = await h.database.db.selectFrom('nvd_records').select(['cve', 'configurations']).orderBy('cve').execute();
    assert.equal(held.length, COUNT - 4);
    assert.deepEqual(JSON.parse(held[0]!.configurations), JSON.parse(JSON.stringify(DNSMASQ.configurations)));
    const keys = await h.database.db.selectFrom('nvd_record_products').select('product_key').where('cve', '=', idOf(0)).execute();
    assert.deepEqual(keys.map((k) => k.product_key).sort(), [
      'fedoraproject:fedora',
      'oracle:communications_cloud_native_core_network_function_cloud_native_environment',
      'redhat:enterprise_linux',
      'thekelleys:dnsmasq',
    ]);

    const again = (await cli('vuln', 'import', join(dir, 'nvdcve-2.0-2021.json.gz'), '--json')).json();
    assert.deepEqual([again.records, again.new, again.changed, again.unchanged], [COUNT, 0, 0, COUNT - 4]);
    assert.deepEqual(again.skipped, skipped);
  });
});
