import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { FORMS } from '../../../src/sbom/parse/component-rows.js';
import { componentsRepo } from '../../../src/sbom/store/components.repo.js';
import { buildHarness, suiteTeardown } from '../../helpers/app.js';
import { TEST_BACKEND } from '../../helpers/db.js';
import { cycloneDx16, fixtureBytes } from '../sbom-fixtures.js';

// docs/sbom.md ("Reading the stored columns") tells an operator how to read a components row by
// hand, since its purl, ref, type and licences are stored encoded. Its query, run as written on
// both databases, must read what the repository reads, for rows in every form.

const DOC = new URL('../../../docs/sbom.md', import.meta.url);

/** The documented query, for this backend (PostgreSQL writes chr(1) for SQLite's char(1), as the text says). */
function documentedQuery(): string {
  const text = readFileSync(DOC, 'utf8');
  const section = text.slice(text.indexOf('### Reading the stored columns'));
  const query = /```sql\n([\s\S]*?)```/.exec(section)?.[1];
  if (!query?.includes('from components'))
    assert.fail('docs/sbom.md has no query of the components table under "Reading the stored columns"');
  return TEST_BACKEND === 'postgres' ? query.replaceAll('char(1)', 'chr(1)') : query;
}

describe("docs/sbom.md's query of the components table", () => {
  const teardown = suiteTeardown();

  it('reads every stored form as the repository does', async () => {
    const h = await buildHarness(teardown);
    const acme = await h.tenant('acme', ['products:write']);
    const upload = async (sku: string, bytes: Buffer) => {
      await h.products.addProduct('acme', sku, { name: sku });
      const { sbom } = await h.sbom.ingestSbom({ orgId: acme.orgId, sku, bytes, actor: 'test' });
      return componentsRepo.memberIds(h.database.db, acme.orgId, sbom.sbom_id);
    };
    // Real documents (npm purls as bom-refs, Maven, SPDX 2 and 3), and the ref forms they lack.
    const doc = cycloneDx16(0);
    doc.components = [
      { type: 'library', name: 'lodash', version: '4.17.21', purl: 'pkg:npm/lodash@4.17.21', 'bom-ref': 'lodash@4.17.21' },
      { type: 'framework', name: 'core', version: '7.1.0', purl: 'pkg:npm/%40babel/core@7.1.0', 'bom-ref': '@babel/core@7.1.0' },
      { type: 'library', name: 'no-version', purl: 'pkg:npm/no-version', licenses: [{ license: { id: 'MIT' } }] },
      { type: 'application', name: 'other', version: '1.0', purl: 'pkg:npm/renamed@1.0', 'bom-ref': 'renamed' },
      { type: 'firmware', name: 'busybox', version: '1.36.1', cpe: 'cpe:2.3:a:busybox:busybox:1.36.1:*:*:*:*:*:*:*' },
    ];
    const ids = [
      ...(await upload('LARAVEL', fixtureBytes('cyclonedx/laravel-7.12.0-bom.1.4.json'))),
      ...(await upload('DROPWIZARD', fixtureBytes('cyclonedx/dropwizard-1.3.15-bom.json'))),
      ...(await upload('SPDX2', fixtureBytes('spdx/example9-spdx2.2-appbomination.spdx.json'))),
      ...(await upload('SPDX3', fixtureBytes('spdx/example9-spdx3.0-appbomination.spdx3.json'))),
      ...(await upload('CASES', Buffer.from(JSON.stringify(doc)))),
    ];

    const { rows } = await sql<{
      id: number;
      name: string;
      version: string | null;
      purl: string | null;
      ref: string | null;
      type: string | null;
      licenses: string | null;
      cpes: string | null;
    }>`${sql.raw(documentedQuery())}`.execute(h.database.db);
    const expected = await componentsRepo.byIds(h.database.db, acme.orgId, ids);
    assert.equal(rows.length, expected.size);
    for (const row of rows) assert.deepEqual({ ...row, id: Number(row.id) }, expected.get(Number(row.id)));

    // Every form occurs, and a row with none: the query is tried on each.
    const { rows: forms } = await sql<{ forms: number }>`select distinct forms from components`.execute(h.database.db);
    for (const bit of [0, ...Object.values(FORMS)])
      assert.ok(
        forms.some((f) => (bit === 0 ? Number(f.forms) === 0 : (Number(f.forms) & bit) !== 0)),
        `no stored row has forms ${bit}`,
      );
  });
});
