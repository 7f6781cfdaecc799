import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import { useHarness } from '../helpers/app.js';
import { REPO_ROOT } from '../helpers/cli.js';
import { fixtureJson } from '../sbom/sbom-fixtures.js';

const run = promisify(execFile);
const TSC = join(REPO_ROOT, 'node_modules', '.bin', 'tsc');

// A client generated with openapi-typescript from the document this server serves, and a small
// program using it the way a manufacturer's build pipeline would: literal CycloneDX and SPDX
// documents (real published ones, written out as TypeScript object literals) as request bodies,
// and every answer read through its generated type. It must compile under `strict`; programs
// that misuse the types must not.

const PREAMBLE = `import type { components, paths } from './api';
type Ingest = paths['/products/{sku}/sbom']['post'];
type SbomBody = Ingest['requestBody']['content']['application/json'];
type Ingested = Ingest['responses'][201]['content']['application/json'];
type Incident = paths['/incidents']['post'];
type NewIncident = Incident['requestBody']['content']['application/json'];
`;

const literal = (value: unknown) => JSON.stringify(value, null, 2);

function goodProgram(): string {
  return `${PREAMBLE}
const cyclonedx: SbomBody = ${literal(fixtureJson('cyclonedx/laravel-7.12.0-bom.1.4.json'))};
const cyclonedxMedia: Ingest['requestBody']['content']['application/vnd.cyclonedx+json'] = {
  bomFormat: 'CycloneDX',
  specVersion: '1.6',
  serialNumber: 'urn:uuid:3e671687-395b-41f5-a30f-a58921a69b79',
  version: 1,
  metadata: { component: { type: 'firmware', name: 'router-100-firmware', version: '2.4.1' } },
  components: [{ type: 'library', name: 'openssl', version: '3.0.15', purl: 'pkg:generic/openssl@3.0.15' }],
};
const spdx2: SbomBody = ${literal(fixtureJson('spdx/example8-spdx2.3-examplemaven-0.0.1.spdx.json'))};
const spdx3: Ingest['requestBody']['content']['application/spdx+json'] = ${literal(fixtureJson('spdx/example11-spdx3.0-sbom.spdx3.json'))};

const report: NewIncident = { description: 'Telnet open on port 23', title: null, cve: 'CVE-2026-12345', sku: 'RTR-100', gtin: null };

function describeIngest(r: Ingested): string {
  const format: 'cyclonedx' | 'spdx' = r.format;
  return \`\${r.product_sku} \${r.release_version}: \${r.components.toFixed(0)} components, \${format} \${r.spec_version}, \${r.digest} at \${r.ingested_at}\`;
}
function deadline(c: Incident['responses'][201]['content']['application/json']): string | null {
  return c.status === 'OPEN' ? c.early_warning_deadline : null;
}
function gtins(list: paths['/products']['get']['responses'][200]['content']['application/json']): Array<string | null> {
  return list.products.filter((p) => p.status === 'active' && p.risk_level !== 'low').map((p) => p.gtin);
}
function timers(score: paths['/compliance-score']['get']['responses'][200]['content']['application/json']): number[] {
  return score.active_timers.map((t) => t.incident_number + (score.mttn_seconds ?? 0));
}
function failure(e: components['schemas']['Error']): string {
  return \`\${e.code} \${e.request_id}: \${e.errore} \${(e.details ?? []).map((d) => d.path).join(',')}\`;
}
export const used = [cyclonedx, cyclonedxMedia, spdx2, spdx3, report, describeIngest, deadline, gtins, timers, failure];
`;
}

/** Programs that must not compile, each with the error tsc must give. */
const BAD_PROGRAMS: Record<string, { code: string; body: string }> = {
  'bad-spec-version.ts': {
    code: 'TS2322',
    body: `const doc: Ingest['requestBody']['content']['application/vnd.cyclonedx+json'] = { bomFormat: 'CycloneDX', specVersion: '9.9' };`,
  },
  'no-format.ts': { code: 'TS2322', body: `const doc: SbomBody = { version: 1, components: [] };` },
  'numeric-description.ts': { code: 'TS2322', body: `const report: NewIncident = { description: 42 };` },
  'unknown-answer-field.ts': { code: 'TS2339', body: `export const read = (r: Ingested): string => r.sbom_url;` },
};

describe('a typed client generated from the served OpenAPI document (openapi-typescript)', () => {
  const harness = useHarness();
  let dir: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cra-typed-client-'));
    const res = await harness().app.inject({ method: 'GET', url: '/swagger/openapi.json', headers: { host: '127.0.0.1:8080' } });
    assert.equal(res.statusCode, 200);
    writeFileSync(join(dir, 'api.d.ts'), astToString(await openapiTS(res.json())));
    const compilerOptions = {
      strict: true,
      noEmit: true,
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      types: [],
      skipLibCheck: false,
    };
    writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
    writeFileSync(join(dir, 'tsconfig.good.json'), JSON.stringify({ compilerOptions, files: ['api.d.ts', 'good.ts'] }));
    writeFileSync(join(dir, 'tsconfig.bad.json'), JSON.stringify({ compilerOptions, files: ['api.d.ts', ...Object.keys(BAD_PROGRAMS)] }));
    writeFileSync(join(dir, 'good.ts'), goodProgram().replaceAll("from './api'", "from './api.js'"));
    for (const [file, { body }] of Object.entries(BAD_PROGRAMS)) {
      writeFileSync(join(dir, file), `${PREAMBLE.replace("from './api'", "from './api.js'")}\n${body}\nexport {};\n`);
    }
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('compiles a program that sends literal CycloneDX and SPDX documents and reads every answer', async () => {
    const result = await run(TSC, ['-p', join(dir, 'tsconfig.good.json')], { cwd: dir }).then(
      () => ({ code: 0, out: '' }),
      (error: { code: number; stdout: string }) => ({ code: error.code, out: error.stdout }),
    );
    assert.equal(result.code, 0, result.out);
  });

  it('refuses programs that misuse the generated types', async () => {
    const error = await run(TSC, ['-p', join(dir, 'tsconfig.bad.json')], { cwd: dir }).then(
      () => null,
      (e: { stdout: string }) => e,
    );
    assert.ok(error, 'tsc must fail on the bad programs');
    for (const [file, { code }] of Object.entries(BAD_PROGRAMS)) {
      const lines = error.stdout.split('\n').filter((l) => l.startsWith(file));
      assert.ok(lines.length >= 1, `${file} must not compile:\n${error.stdout}`);
      assert.ok(
        lines.some((l) => l.includes(`error ${code}`)),
        `${file}: expected ${code}, got ${lines.join('\n')}`,
      );
    }
  });
});
