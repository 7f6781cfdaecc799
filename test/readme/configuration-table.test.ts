import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ENVIRONMENT_VARIABLES } from '../../src/config.js';
import { REPO_ROOT } from '../helpers/cli.js';

// docs/configuration.md's table is where an operator looks for what the server reads: every
// variable config.ts reads is in it, and it names nothing config.ts does not read. config.ts can
// read only the names of ENVIRONMENT_VARIABLES (its Env type has no other keys); its source is
// searched too, for a read that goes around that type.

const table = readFileSync(join(REPO_ROOT, 'docs/configuration.md'), 'utf8')
  .split('\n')
  .filter((line) => line.startsWith('| `'))
  .flatMap((line) => [...line.split('|')[1]!.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1]!));

describe("docs/configuration.md's table", () => {
  it('names every variable config.ts reads', () => {
    const missing = ENVIRONMENT_VARIABLES.filter((name) => !table.includes(name));
    assert.deepEqual(missing, [], `not in docs/configuration.md: ${missing.join(', ')}`);
  });

  it('names only variables config.ts reads, each once', () => {
    const unknown = table.filter((name) => !(ENVIRONMENT_VARIABLES as readonly string[]).includes(name));
    assert.deepEqual(unknown, [], `documented but never read: ${unknown.join(', ')}`);
    assert.equal(new Set(table).size, table.length, 'a variable with two rows');
  });

  it("holds every name config.ts's source reads, through its list or around it", () => {
    const source = readFileSync(join(REPO_ROOT, 'src/config.ts'), 'utf8');
    const read = new Set([
      ...[...source.matchAll(/\b(?:process\.)?env(?:\?)?\.([A-Z][A-Z0-9_]*)/g)].map((m) => m[1]!),
      ...[...source.matchAll(/\benv\[['"]([A-Z][A-Z0-9_]*)['"]\]/g)].map((m) => m[1]!),
      ...[...source.matchAll(/\(env, '([A-Z][A-Z0-9_]*)'/g)].map((m) => m[1]!),
    ]);
    assert.ok(read.size >= 30, `found only ${read.size} reads: has config.ts changed how it reads?`);
    const unlisted = [...read].filter((name) => !(ENVIRONMENT_VARIABLES as readonly string[]).includes(name));
    assert.deepEqual(unlisted, []);
    const undocumented = [...read].filter((name) => !table.includes(name));
    assert.deepEqual(undocumented, []);
  });
});
