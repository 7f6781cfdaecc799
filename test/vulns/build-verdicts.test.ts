import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import type { Harness } from '../helpers/app.js';
import { useHarness } from '../helpers/app.js';
import { cliOf, importRecords, RECORDS, SALT, sbomOf } from './helpers.js';

// The build system's own verdicts as analyses (firmware.md, "The build system's own verdicts"):
// from real Buildroot and OpenEmbedded SBOMs uploaded through the API, and Yocto's cve-check
// summary through `vex import` (test/fixtures/firmware/README.md).

const FIRMWARE_SBOMS = fileURLToPath(new URL('../fixtures/firmware/sbom/', import.meta.url));
const firmwareFile = (file: string) => `${FIRMWARE_SBOMS}${file}`;

/** An organisation and product of their own, and an upload to the product that waits for its background work. */
async function productOf(h: Harness) {
  const org = `org-${randomUUID().slice(0, 8)}`;
  await h.orgs.createOrg({ slug: org });
  const sku = `FW-${randomUUID().slice(0, 8)}`;
  await h.products.addProduct(org, sku, { name: 'router' });
  const { id: orgId } = await h.orgs.requireOrg(org);
  const product = await h.products.requireProduct(orgId, sku);
  const { secret: key } = await h.keys.createKey({ org, name: 'pipeline', scopes: ['products:write'] });
  const upload = async (payload: Buffer | string): Promise<string> => {
    const res = await h.request({
      method: 'POST',
      url: `/api/v1/external/products/${sku}/sbom`,
      key,
      headers: { 'content-type': 'application/json' },
      payload,
    });
    assert.equal(res.statusCode, 201, res.body);
    await h.vulns.idle();
    return res.json().sbom_id;
  };
  const analyses = async () => {
    const rows = await h.database.db
      .selectFrom('finding_analyses')
      .select(['vuln_key', 'state', 'justification', 'responses', 'detail', 'updated_by'])
      .where('product_id', '=', product.id)
      .orderBy('vuln_key')
      .execute();
    return new Map(rows.map((r) => [r.vuln_key, r]));
  };
  return { org, sku, orgId, product, upload, analyses };
}

describe("the build's own verdicts", () => {
  const harness = useHarness();

  it('Buildroot CycloneDX: resolved_with_pedigree is resolved (update), in_triage stays; the actor is the revision', async () => {
    const h = harness();
    const p = await productOf(h);
    const sbomId = await p.upload(readFileSync(firmwareFile('buildroot-qemu_arm_versatile.cdx.json')));
    const analyses = await p.analyses();
    assert.equal(analyses.size, 10);
    const busybox = analyses.get('CVE-2022-28391');
    assert.deepEqual(busybox, {
      vuln_key: 'CVE-2022-28391',
      state: 'resolved',
      justification: null,
      responses: '["update"]',
      detail: "The CVE 'CVE-2022-28391' has been marked as ignored by Buildroot",
      updated_by: `build:sbom/${sbomId}`,
    });
    assert.equal([...analyses.values()].filter((a) => a.state === 'in_triage').length, 4);
    assert.equal([...analyses.values()].filter((a) => a.state === 'resolved').length, 6);
    // Each is a registry entry by the build, naming the revision.
    const registry = (await cliOf(h)('registry', 'list', '--org', p.org, '--json')).json();
    const entry = registry.find((e: any) => e.action === 'finding.analysed' && e.subject === `${p.sku} CVE-2022-28391`);
    assert.equal(entry.actor, `build:sbom/${sbomId}`);
    assert.equal(entry.details.sbom_id, sbomId);
  });

  it('OpenEmbedded SPDX 3: VexNotAffected with vulnerableCodeNotPresent is code_not_present, VexFixed is resolved', async () => {
    const h = harness();
    const p = await productOf(h);
    const doc = readFileSync(firmwareFile('yocto-core-image-minimal-qemux86-64.rootfs.spdx3.json'));
    // Read first: in process, the server's SBOM reader takes the body's buffer over.
    const graph = JSON.parse(doc.toString())['@graph'] as any[];
    await p.upload(doc);
    const analyses = await p.analyses();
    // One analysis per vulnerability a VEX relationship assesses (20 of the 67 it names).
    const assessed = new Set(graph.filter((n) => /^security_Vex/.test(n.type)).map((n) => n.from));
    assert.equal(assessed.size, 20);
    assert.equal(analyses.size, 20);
    // busybox's CVE-2022-28391: fixed by a patch of the recipe.
    assert.equal(analyses.get('CVE-2022-28391')?.state, 'resolved');
    const notPresent = [...analyses.values()].filter((a) => a.justification === 'code_not_present');
    assert.ok(notPresent.length > 0);
    for (const a of notPresent) assert.equal(a.state, 'not_affected');
    // glibc's CVE-2019-1010025: not affected, no justification, the build's words as the detail.
    const glibc = analyses.get('CVE-2019-1010025');
    assert.equal(glibc?.state, 'not_affected');
    assert.equal(glibc?.justification, null);
    assert.match(glibc?.detail ?? '', /ASLR bypass/);
  });

  it("a person's analysis is never overwritten by an upload; a later upload's verdict replaces an earlier build verdict", async () => {
    const h = harness();
    const p = await productOf(h);
    await importRecords(h, RECORDS.salt);
    const withVerdict = (state: string) => {
      const doc: any = sbomOf([SALT]);
      doc.vulnerabilities = [{ id: 'CVE-2020-11651', analysis: { state, detail: `build says ${state}` }, affects: [{ ref: SALT }] }];
      return JSON.stringify(doc);
    };
    await p.upload(withVerdict('in_triage'));
    const [key] = [...(await p.analyses()).keys()];
    assert.equal((await p.analyses()).get(key!)?.state, 'in_triage');
    const second = await p.upload(withVerdict('resolved'));
    assert.deepEqual((({ state, updated_by }) => ({ state, updated_by }))((await p.analyses()).get(key!)!), {
      state: 'resolved',
      updated_by: `build:sbom/${second}`,
    });
    // `finding list --json` says who set it: the build, by its revision.
    const listed = async () => {
      const out = await cliOf(h)('finding', 'list', '--org', p.org, '--json');
      assert.equal(out.code, 0, out.stderr);
      const rows = out.json().findings as Array<{ vulnerability: string; state: string; analysed_by: string | null }>;
      return rows.filter((f) => f.vulnerability === key).map((f) => [f.state, f.analysed_by]);
    };
    assert.deepEqual(await listed(), [['resolved', `build:sbom/${second}`]]);
    // A person says otherwise; the next upload does not change it.
    await h.vulns.analyse({ org: p.org, sku: p.sku, vuln: 'CVE-2020-11651', state: 'exploitable', actor: 'cli' });
    await p.upload(withVerdict('not_affected'));
    const after = (await p.analyses()).get(key!)!;
    assert.equal(after.state, 'exploitable');
    assert.equal(after.updated_by, 'cli');
    assert.deepEqual(await listed(), [['exploitable', 'cli']]);
    // Nor does a cve-check summary imported with vex import.
    const summary = {
      version: '1',
      package: [{ name: 'salt', version: '3000.1', issue: [{ id: 'CVE-2020-11651', status: 'Patched', detail: 'backported-patch' }] }],
    };
    const file = join(tmpdir(), `cve-summary-${randomUUID()}.json`);
    writeFileSync(file, JSON.stringify(summary));
    try {
      const result = await cliOf(h)('vex', 'import', '--org', p.org, '--sku', p.sku, file, '--json');
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.json().applied, 0);
      assert.match(result.json().unmatched[0].reason, /never replaces a person's/);
    } finally {
      rmSync(file, { force: true });
    }
    assert.equal((await p.analyses()).get(key!)?.state, 'exploitable');
    // A person may change it again.
    await h.vulns.analyse({ org: p.org, sku: p.sku, vuln: 'CVE-2020-11651', state: 'resolved', actor: 'cli' });
    assert.equal((await p.analyses()).get(key!)?.state, 'resolved');
  });

  it('vex import of a Yocto cve-summary.json needs --sku; with it, the analyses exist before their findings, keyed by CVE id', async () => {
    const h = harness();
    const p = await productOf(h);
    const cli = cliOf(h);
    const refused = await cli('vex', 'import', '--org', p.org, firmwareFile('yocto-cve-summary.json'));
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /cve-summary\.json\) names no product of the organisation: give the product's SKU \(--sku/);
    assert.equal((await p.analyses()).size, 0);

    const result = await cli(
      'vex',
      'import',
      '--org',
      p.org,
      '--sku',
      p.sku,
      '--release',
      '1.0.0',
      firmwareFile('yocto-cve-summary.json'),
      '--json',
    );
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.json().applied, 4);
    const analyses = await p.analyses();
    assert.deepEqual(
      [...analyses.values()].map((a) => [a.vuln_key, a.state, a.updated_by]),
      [
        ['CVE-2007-3152', 'resolved', 'build:cve-check (vex import by cli)'],
        ['CVE-2020-14354', 'resolved', 'build:cve-check (vex import by cli)'],
        ['CVE-2022-28391', 'resolved', 'build:cve-check (vex import by cli)'],
        ['CVE-2023-31124', 'not_affected', 'build:cve-check (vex import by cli)'],
      ],
    );
    // No finding of them exists: the analyses wait for the findings a CPE match will make.
    const findings = await h.database.db.selectFrom('findings').select('vuln_key').where('product_id', '=', p.product.id).execute();
    assert.equal(findings.length, 0);
  });

  it('cve-check statuses map as the Readings table says, the most cautious verdict of one CVE standing', async () => {
    const h = harness();
    const p = await productOf(h);
    const result = await cliOf(h)(
      'vex',
      'import',
      '--org',
      p.org,
      '--sku',
      p.sku,
      firmwareFile('yocto-cve-check-duplicate-versions.json'),
      '--json',
    );
    assert.equal(result.code, 0, result.stderr);
    const analyses = await p.analyses();
    // openssl 3.1.4 patched CVE-2023-5678, openssl 1.1.1w did not: the product is exposed.
    assert.equal(analyses.get('CVE-2023-5678')?.state, 'exploitable');
    assert.equal(analyses.get('CVE-2024-0727')?.state, 'resolved');
    assert.equal(analyses.get('CVE-2024-0727')?.responses, '["update"]');
    assert.equal(analyses.get('CVE-2023-42366')?.state, 'not_affected');
  });

  it("newer cve-check reasons: cpe-incorrect is a false positive, a platform or config reason code_not_present, the build's words the detail", async () => {
    const h = harness();
    const p = await productOf(h);
    // The shape of Yocto 5.x cve-check summaries: each issue with a `detail` and a `description`.
    const summary = {
      version: '1',
      package: [
        {
          name: 'openssl',
          version: '3.2.3',
          issue: [
            { id: 'CVE-2024-0727', status: 'Patched', detail: 'backported-patch', description: 'CVE-2024-0727.patch' },
            { id: 'CVE-2023-6129', status: 'Ignored', detail: 'not-applicable-platform', description: 'only affects PowerPC' },
            { id: 'CVE-2023-1255', status: 'Ignored', detail: 'not-applicable-config', description: 'AES-XTS not enabled' },
            { id: 'CVE-2007-4995', status: 'Ignored', detail: 'cpe-incorrect', description: 'another openssl' },
            { id: 'CVE-2022-0001', status: 'Ignored', detail: 'disputed' },
            { id: 'cve-2024-5535', status: 'Unpatched', detail: 'version-in-range' },
            { id: 'NOT-A-CVE', status: 'Patched' },
          ],
        },
      ],
    };
    const file = join(tmpdir(), `cve-summary-${randomUUID()}.json`);
    writeFileSync(file, JSON.stringify(summary));
    try {
      const result = await cliOf(h)('vex', 'import', '--org', p.org, '--sku', p.sku, file, '--json');
      assert.equal(result.code, 0, result.stderr);
      assert.deepEqual(result.json().unmatched, [
        { vulnerability: 'NOT-A-CVE', product: p.sku, reason: 'no vulnerability with this id or alias' },
      ]);
    } finally {
      rmSync(file, { force: true });
    }
    const analyses = await p.analyses();
    const view = (key: string) => {
      const a = analyses.get(key)!;
      return [a.state, a.justification, a.responses, a.detail];
    };
    assert.deepEqual(view('CVE-2024-0727'), ['resolved', null, '["update"]', 'backported-patch: CVE-2024-0727.patch']);
    assert.deepEqual(view('CVE-2023-6129'), ['not_affected', 'code_not_present', '[]', 'not-applicable-platform: only affects PowerPC']);
    assert.deepEqual(view('CVE-2023-1255'), ['not_affected', 'code_not_present', '[]', 'not-applicable-config: AES-XTS not enabled']);
    assert.deepEqual(view('CVE-2007-4995'), ['false_positive', null, '[]', 'cpe-incorrect: another openssl']);
    assert.deepEqual(view('CVE-2022-0001'), ['not_affected', null, '[]', 'disputed']);
    assert.deepEqual(view('CVE-2024-5535'), ['exploitable', null, '[]', 'version-in-range']);
  });

  it('vex import of an SPDX 3 document with VEX relationships needs --sku, and then sets the same analyses as its upload', async () => {
    const h = harness();
    const p = await productOf(h);
    const cli = cliOf(h);
    const file = firmwareFile('yocto-core-image-minimal-qemux86-64.rootfs.spdx3.json');
    const refused = await cli('vex', 'import', '--org', p.org, file);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /SPDX 3 document names no product of the organisation: give the product's SKU/);
    const result = await cli('vex', 'import', '--org', p.org, '--sku', p.sku, file, '--json');
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.json().applied, 20);
    const analyses = await p.analyses();
    assert.equal(analyses.get('CVE-2022-28391')?.state, 'resolved');
    assert.equal(analyses.get('CVE-2022-28391')?.updated_by, 'build:spdx3 (vex import by cli)');
    // --sku is for build files only.
    const other = await cli('vex', 'import', '--org', p.org, '--sku', p.sku, firmwareFile('buildroot-qemu_arm_versatile.cdx.json'));
    assert.equal(other.code, 1);
    assert.match(other.stderr, /--sku and --release are for build files that name no product/);
  });
});
