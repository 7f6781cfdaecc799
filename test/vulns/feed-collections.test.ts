import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createServices } from '../../src/services.js';
import { fullCollection } from '../../src/shared/full-collection.js';
import { createTestDatabase } from '../helpers/db.js';

// A process running one command (cra-admin) lets a long feed import pause for full garbage
// collections now and then, so that its memory stays near what it holds (bench/vulns.mjs
// measures the peak); the server does not.

describe('full collections in a feed import', () => {
  it('fullCollection frees garbage the old generation holds', () => {
    const holder: { objects: Array<{ i: number; text: string }> | null } = { objects: [] };
    for (let i = 0; i < 500_000; i++) holder.objects!.push({ i, text: `record ${i}` });
    fullCollection(); // promoted: now in the old generation
    const held = process.memoryUsage().heapUsed;
    holder.objects = null;
    fullCollection();
    const freed = held - process.memoryUsage().heapUsed;
    assert.ok(freed > 20 * 1024 * 1024, `freed ${Math.round(freed / 1024 / 1024)} MiB of the ~30 MiB let go`);
  });

  it('an import collects every so many records when its process allows it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cra-feed-collections-'));
    const testDb = await createTestDatabase();
    let collections = 0;
    const services = createServices({ database: testDb.database, collectGarbage: { collect: () => collections++, everyRecords: 400 } });
    try {
      for (let i = 0; i < 1_200; i++) {
        const id = `TEST-${String(i).padStart(4, '0')}`;
        const record = {
          schema_version: '1.6.0',
          id,
          modified: '2026-01-01T00:00:00Z',
          affected: [{ package: { ecosystem: 'npm', name: `pkg-${i}` }, ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }] }] }],
        };
        writeFileSync(join(dir, `${id}.json`), JSON.stringify(record));
      }
      const [summary] = await services.vulns.importFeeds([dir]);
      assert.equal(summary!.new, 1_200);
      // Batches of 500, 500 and 200: a collection after each of the first two.
      assert.equal(collections, 2);
    } finally {
      await services.close();
      await testDb.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an NVD import collects the same way', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cra-feed-collections-'));
    const testDb = await createTestDatabase();
    let collections = 0;
    const services = createServices({ database: testDb.database, collectGarbage: { collect: () => collections++, everyRecords: 400 } });
    try {
      const items = Array.from({ length: 1_200 }, (_, i) => ({
        cve: { id: `CVE-2024-${10_000 + i}`, vulnStatus: 'Analyzed', configurations: [] },
      }));
      writeFileSync(join(dir, 'nvdcve-2.0-2024.json'), JSON.stringify({ format: 'NVD_CVE', version: '2.0', vulnerabilities: items }));
      const [summary] = await services.vulns.importFeeds([join(dir, 'nvdcve-2.0-2024.json')]);
      assert.deepEqual([summary!.kind, summary!.new], ['nvd', 1_200]);
      assert.equal(collections, 2);
    } finally {
      await services.close();
      await testDb.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
