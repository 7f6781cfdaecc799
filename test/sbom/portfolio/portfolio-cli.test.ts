import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { diffComponents } from '../../../src/sbom/portfolio/portfolio.service.js';
import { runCli } from '../../helpers/cli.js';
import { createEmptyDatabaseUrl } from '../../helpers/db.js';
import { cycloneDx16 } from '../sbom-fixtures.js';

// cra-admin component search and sbom diff, on SBOMs uploaded with cra-admin.

describe('cra-admin component search and sbom diff', () => {
  let env: Record<string, string>;
  let drop: () => Promise<void>;
  let dir: string;
  const ids: Record<string, string> = {};

  const upload = async (org: string, sku: string, doc: unknown, name: string) => {
    const file = join(dir, `${name}.json`);
    writeFileSync(file, JSON.stringify(doc));
    const run = await runCli(['sbom', 'upload', '--org', org, '--sku', sku, file, '--json'], env);
    assert.equal(run.code, 0, run.stderr);
    ids[name] = run.json().sbom_id;
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cra-portfolio-'));
    const db = await createEmptyDatabaseUrl();
    drop = db.drop;
    env = { DATABASE_URL: db.url };
    for (const org of ['acme', 'other']) assert.equal((await runCli(['org', 'create', org], env)).code, 0);
    for (const sku of ['RTR-1', 'CAM-1'])
      assert.equal((await runCli(['product', 'add', '--org', 'acme', '--sku', sku, '--name', sku], env)).code, 0);
    assert.equal((await runCli(['product', 'add', '--org', 'other', '--sku', 'THEIRS', '--name', 'Theirs'], env)).code, 0);

    // RTR-1 release 1.0.0: revision 1 has lib-0..lib-3; revision 2 drops lib-0, upgrades lib-1, adds extra.
    await upload('acme', 'RTR-1', cycloneDx16(4, { version: '1.0.0' }), 'r1');
    const second = cycloneDx16(4, { version: '1.0.0' });
    second.components.shift();
    second.components[0] = { ...second.components[0], version: '2.0.0', purl: 'pkg:npm/lib-1@2.0.0', 'bom-ref': 'pkg:npm/lib-1@2.0.0' };
    second.components.push({ type: 'library', name: 'extra', version: '0.1.0', purl: 'pkg:npm/extra@0.1.0' });
    await upload('acme', 'RTR-1', second, 'r2');
    await upload('acme', 'CAM-1', cycloneDx16(2, { version: '7.0' }), 'cam');
    await upload('other', 'THEIRS', cycloneDx16(3, { version: '1.0.0' }), 'theirs');
  });
  after(async () => {
    await drop?.();
    rmSync(dir, { recursive: true, force: true });
  });

  it('component search --purl: every revision of every product holding it, latest revision first; never another organisation', async () => {
    const run = await runCli(['component', 'search', '--org', 'acme', '--purl', 'pkg:npm/lib-2@1.0.2', '--json'], env);
    assert.equal(run.code, 0, run.stderr);
    const component = { name: 'lib-2', version: '1.0.2', purl: 'pkg:npm/lib-2@1.0.2' };
    assert.deepEqual(run.json(), [
      { sku: 'RTR-1', release_version: '1.0.0', revision: 2, sbom_id: ids.r2, component },
      { sku: 'RTR-1', release_version: '1.0.0', revision: 1, sbom_id: ids.r1, component },
    ]);
    const text = await runCli(['component', 'search', '--org', 'acme', '--purl', 'pkg:npm/lib-2@1.0.2'], env);
    assert.match(text.stdout, /RTR-1\s+1\.0\.0\s+2\s+lib-2/);
  });

  it('component search --name [--version]', async () => {
    const all = (await runCli(['component', 'search', '--org', 'acme', '--name', 'lib-1', '--json'], env)).json();
    assert.deepEqual(
      all.map((h: any) => [h.sku, h.revision, h.component.version]),
      [
        ['CAM-1', 1, '1.0.1'],
        ['RTR-1', 2, '2.0.0'],
        ['RTR-1', 1, '1.0.1'],
      ],
    );
    const one = (await runCli(['component', 'search', '--org', 'acme', '--name', 'lib-1', '--version', '2.0.0', '--json'], env)).json();
    assert.deepEqual(
      one.map((h: any) => h.sbom_id),
      [ids.r2],
    );
    assert.deepEqual((await runCli(['component', 'search', '--org', 'acme', '--name', 'nothing', '--json'], env)).json(), []);
    const usage = await runCli(['component', 'search', '--org', 'acme'], env);
    assert.equal(usage.code, 2, 'a usage error');
    assert.match(usage.stderr, /--purl P or --name N/);
  });

  it('sbom diff: added, removed and changed in version between two revisions', async () => {
    const run = await runCli(
      ['sbom', 'diff', '--org', 'acme', '--sku', 'RTR-1', '--release', '1.0.0', '--from', '1', '--to', '2', '--json'],
      env,
    );
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(run.json(), {
      added: [{ name: 'extra', version: '0.1.0', purl: 'pkg:npm/extra@0.1.0' }],
      removed: [{ name: 'lib-0', version: '1.0.0', purl: 'pkg:npm/lib-0@1.0.0' }],
      changed: [{ name: 'lib-1', purl: 'pkg:npm/lib-1@2.0.0', from_version: '1.0.1', to_version: '2.0.0' }],
    });
    // Without --release: the release that received the latest SBOM; text output.
    const text = await runCli(['sbom', 'diff', '--org', 'acme', '--sku', 'RTR-1', '--from', '2', '--to', '1'], env);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /1 added, 1 removed, 1 changed/);
    assert.match(text.stdout, /\+ lib-0 1\.0\.0/);
    assert.match(text.stdout, /~ lib-1 2\.0\.0 → 1\.0\.1/);
  });

  it('sbom diff: clear errors for what does not exist, and for another organisation’s product', async () => {
    const highest = await runCli(['sbom', 'diff', '--org', 'acme', '--sku', 'RTR-1', '--from', '1', '--to', '2147483647'], env);
    assert.equal(highest.code, 1, highest.stderr);
    assert.match(highest.stderr, /has no revision 2147483647/);
    const missing = await runCli(['sbom', 'diff', '--org', 'acme', '--sku', 'RTR-1', '--from', '1', '--to', '9'], env);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /has no revision 9/);
    const release = await runCli(['sbom', 'diff', '--org', 'acme', '--sku', 'RTR-1', '--release', '5.5', '--from', '1', '--to', '2'], env);
    assert.match(release.stderr, /no SBOM for release 5\.5/);
    const theirs = await runCli(['sbom', 'diff', '--org', 'acme', '--sku', 'THEIRS', '--from', '1', '--to', '1'], env);
    assert.match(theirs.stderr, /no product with SKU "THEIRS"/);
    for (const from of ['x', '0', '-1', '1.5', '1e0', '0x1', ' 1', '2147483648', '99999999999999999999']) {
      const bad = await runCli(['sbom', 'diff', '--org', 'acme', '--sku', 'RTR-1', '--from', from, '--to', '1'], env);
      assert.equal(bad.code, 2, from);
      assert.match(bad.stderr, /expected a revision number/, from);
    }
  });
});

describe('diffComponents', () => {
  const c = (name: string, version: string | null, purl: string | null = null) => ({ name, version, purl });
  it('pairs versions by purl without version, else by name; several versions on a side are added/removed one by one', () => {
    const diff = diffComponents(
      [c('a', '1', 'pkg:npm/a@1'), c('b', '1'), c('d', '1'), c('d', '2'), c('e', '1', 'pkg:npm/e@1?x=1')],
      [c('a', '2', 'pkg:npm/a@2'), c('b', '1'), c('d', '2'), c('d', '3'), c('e', '1', 'pkg:npm/e@1?x=2'), c('f', null)],
    );
    assert.deepEqual(diff.changed, [{ name: 'a', purl: 'pkg:npm/a@2', from_version: '1', to_version: '2' }]);
    assert.deepEqual(diff.removed, [c('d', '1')]);
    assert.deepEqual(diff.added, [c('d', '3'), c('f', null)]);
  });
});
