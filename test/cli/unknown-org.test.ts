import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { REPO_ROOT, runCli } from '../helpers/cli.js';
import { createEmptyDatabaseUrl } from '../helpers/db.js';

// Every command that takes --org leaves the slug to the service it calls (orgs.requireOrg): an
// unknown one is the same error, exit 1 and nothing on stdout, whatever else the command needs.

const anyFile = join(REPO_ROOT, 'package.json');
const COMMANDS = [
  ['signal', 'list'],
  ['signal', 'list', '--unattributed'],
  ['product', 'list'],
  ['sbom', 'upload', '--sku', 'RTR-1', anyFile],
  ['sbom', 'diff', '--sku', 'RTR-1', '--from', '1', '--to', '2'],
  ['component', 'search', '--purl', 'pkg:npm/lib@1.0.0'],
  ['component', 'candidates'],
  ['component', 'map-cpe', '--name', 'u-boot', '--cpe', 'cpe:2.3:a:denx:u-boot'],
  ['component', 'map-cpe', '--name', 'u-boot', '--remove'],
  ['registry', 'list'],
  ['registry', 'verify'],
  // Checked before REGISTRY_SIGNING_KEY (not set here) and before the checkpoint's content.
  ['registry', 'verify', '--checkpoint', anyFile],
  ['registry', 'checkpoint'],
];

describe('cra-admin with an --org that names no organisation', () => {
  let env: Record<string, string>;
  let drop: () => Promise<void>;
  before(async () => {
    const db = await createEmptyDatabaseUrl();
    env = { DATABASE_URL: db.url };
    drop = db.drop;
  });
  after(async () => drop?.());

  for (const command of COMMANDS) {
    it(command.map((word) => (word === anyFile ? 'FILE' : word)).join(' '), async () => {
      const run = await runCli([...command, '--org', 'ghost', '--json'], env);
      assert.equal(run.code, 1, run.stderr);
      assert.equal(run.stdout, '');
      assert.match(run.stderr, /no organisation with slug "ghost"/);
    });
  }
});
