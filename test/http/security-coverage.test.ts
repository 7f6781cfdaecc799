import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { useHarness } from '../helpers/app.js';
import { REPO_ROOT } from '../helpers/cli.js';

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? testFiles(path) : name.endsWith('.test.ts') ? [path] : [];
  });
}

/** The operationIds that the suite's securitySuite({ … operationId: '…' }) calls name. */
function coveredOperations(): Map<string, string> {
  const covered = new Map<string, string>();
  for (const file of testFiles(join(REPO_ROOT, 'test'))) {
    const text = readFileSync(file, 'utf8');
    for (const call of text.split('securitySuite({').slice(1)) {
      const id = /operationId:\s*'([^']+)'/.exec(call)?.[1];
      if (id) covered.set(id, file.slice(REPO_ROOT.length));
    }
  }
  return covered;
}

describe('the shared security suite covers every operation of the OpenAPI document', () => {
  const harness = useHarness();

  it('names every operationId of the served document in a securitySuite call', async () => {
    const doc = (await harness().app.inject({ method: 'GET', url: '/swagger/openapi.json', headers: { host: '127.0.0.1' } })).json();
    const operations = Object.entries(doc.paths as Record<string, Record<string, { operationId?: string }>>).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({ id: op.operationId, where: `${method.toUpperCase()} ${path}` })),
    );
    assert.ok(operations.length >= 4);
    const covered = coveredOperations();
    const missing = operations.filter((op) => !op.id || !covered.has(op.id)).map((op) => `${op.where} (${op.id ?? 'no operationId'})`);
    assert.deepEqual(missing, [], `operations without securitySuite (test/helpers/security.ts): ${missing.join(', ')}`);
  });
});
