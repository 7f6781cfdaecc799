// test-backend: one (scripts/test.mjs): the document is under test; art14-cli.test.ts runs the flow on both
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { buildHarness, type Harness, suiteTeardown } from '../helpers/app.js';
import { REPO_ROOT } from '../helpers/cli.js';
import { csafErrors } from '../helpers/csaf.js';
import { postIncident } from '../helpers/incidents.js';

// The Article 14 walk-through (docs/art14.md, section "Walk-through"), run exactly as written: its
// `sh` block through bash (with `npx cra-admin` running the built CLI) and its `json` block as
// final-report.json.

function walkThrough(): { script: string; finalReport: string } {
  const doc = readFileSync(join(REPO_ROOT, 'docs/art14.md'), 'utf8');
  const start = doc.indexOf('\n## Walk-through\n');
  assert.ok(start >= 0, 'docs/art14.md has a "## Walk-through" section');
  const end = doc.indexOf('\n## ', start + 1);
  const section = doc.slice(start, end < 0 ? undefined : end);
  const block = (lang: string) => {
    const match = new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``).exec(section);
    assert.ok(match, `the Article 14 walk-through has a ${lang} block`);
    return match[1]!;
  };
  return { script: block('sh'), finalReport: block('json') };
}

describe('docs/art14.md: the Article 14 walk-through runs as written', () => {
  let h: Harness;
  const teardown = suiteTeardown();

  before(async () => {
    h = await buildHarness(teardown);
    h.clock.current = new Date('2026-11-20T07:00:00.000Z');
    const acme = await h.tenant('acme', ['incidents:write']);
    await h.products.addProduct('acme', 'RTR-100', { name: 'Router 100', firmwareVersion: '2.4.1' });
    for (const description of ['one', 'two', 'three']) await postIncident(h, acme.key, { description });
    await postIncident(h, acme.key, { description: 'Exploited RCE in the router web interface', cve: 'CVE-2026-12345' });
    await postIncident(h, acme.key, { description: 'Monitoring test' });
    await postIncident(h, acme.key, { description: 'The same RCE, from a customer', sku: 'RTR-100' });
  });

  it('every command succeeds and leaves a closed case with every stage filed, an advisory and the evidence', async () => {
    const { script, finalReport } = walkThrough();
    const dir = mkdtempSync(join(tmpdir(), 'readme-art14-'));
    try {
      writeFileSync(join(dir, 'final-report.json'), finalReport);
      const cli = join(REPO_ROOT, 'dist/cli/main.js');
      const run = spawnSync('bash', ['-c', `set -euo pipefail\nnpx() { shift; node ${JSON.stringify(cli)} "$@"; }\n${script}`], {
        cwd: dir,
        env: { PATH: process.env.PATH ?? '', DATABASE_URL: h.config.databaseUrl, LOG_LEVEL: 'silent' },
        encoding: 'utf8',
      });
      assert.equal(run.status, 0, `${run.stderr}\n${run.stdout.slice(-2000)}`);
      const cases = JSON.parse(run.stdout.slice(run.stdout.lastIndexOf('\n[\n') + 1));
      const kase = cases.find((c: { incident_number: number }) => c.incident_number === 4);
      assert.equal(kase.status, 'closed');
      assert.deepEqual(
        kase.stages.map((s: { stage: string; state: string }) => `${s.stage}:${s.state}`),
        ['early_warning:met', 'notification:met', 'intermediate:met', 'final:met'],
      );
      assert.deepEqual(await csafErrors(JSON.parse(readFileSync(join(dir, 'acme-case-4.csaf.json'), 'utf8'))), []);
      const bundle = JSON.parse(readFileSync(join(dir, 'case-4-evidence.json'), 'utf8'));
      assert.equal(bundle.reports.length, 4);
      assert.equal(bundle.registry.verification.ok, true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
