import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { openDatabase } from '../../src/db/index.js';
import { migrations } from '../../src/db/migrations/index.js';
import { ProductSchema } from '../../src/products/products.schemas.js';
import { runCli, runCliProcess } from '../helpers/cli.js';
import { allowDirectWrites, createEmptyDatabaseUrl, TEST_BACKEND } from '../helpers/db.js';

// It changes rows directly, outside Database.transaction.
allowDirectWrites();

describe('cra-admin', () => {
  let env: Record<string, string>;
  let drop: () => Promise<void>;
  const cli = (...args: string[]) => runCli(args, env);

  before(async () => {
    const db = await createEmptyDatabaseUrl();
    env = { DATABASE_URL: db.url };
    drop = db.drop;
  });
  after(async () => drop?.());

  it('migrate applies the migrations once', async () => {
    const first = await cli('migrate', '--json');
    assert.equal(first.code, 0, first.stderr);
    assert.deepEqual(first.json(), { applied: migrations.map((m) => m.name) });
    assert.deepEqual((await cli('migrate', '--json')).json(), { applied: [] });
  });

  it('org create / list / set, with --json shapes', async () => {
    const created = await cli('org', 'create', 'acme', '--name', 'Acme GmbH', '--json');
    assert.equal(created.code, 0, created.stderr);
    const org = created.json();
    assert.deepEqual(Object.keys(org).sort(), ['id', 'intake_mode', 'name', 'slug']);
    assert.deepEqual({ ...org, id: undefined }, { id: undefined, slug: 'acme', name: 'Acme GmbH', intake_mode: 'signal' });
    assert.equal((await cli('org', 'create', 'beta', '--intake-mode', 'case', '--json')).json().intake_mode, 'case');
    const list = (await cli('org', 'list', '--json')).json();
    assert.deepEqual(
      list.map((o: { slug: string }) => o.slug),
      ['acme', 'beta'],
    );
    const set = await cli('--json', 'org', 'set', 'acme', '--intake-mode', 'case');
    assert.equal(set.json().intake_mode, 'case');
    await cli('org', 'set', 'acme', '--intake-mode', 'signal');
    const text = await cli('org', 'list');
    assert.match(text.stdout, /acme\s+Acme GmbH\s+signal/);
  });

  it('key create prints the secret once; list never shows a secret or digest', async () => {
    const created = await cli(
      'key',
      'create',
      '--org',
      'acme',
      '--name',
      'pipeline',
      '--scopes',
      'products:write,products:read',
      '--expires-at',
      '2099-01-01T00:00:00Z',
      '--json',
    );
    assert.equal(created.code, 0, created.stderr);
    const key = created.json();
    assert.deepEqual(Object.keys(key).sort(), ['expires_at', 'name', 'prefix', 'scopes', 'secret']);
    assert.match(key.secret, /^cra_[0-9A-Za-z]{36}$/);
    assert.equal(key.secret.startsWith(key.prefix), true);
    assert.deepEqual(key.scopes, ['products:write', 'products:read']);
    assert.equal(key.expires_at, '2099-01-01T00:00:00.000Z');
    const list = await cli('key', 'list', '--org', 'acme', '--json');
    const rows = list.json();
    assert.equal(rows.length, 1);
    assert.deepEqual(Object.keys(rows[0]).sort(), [
      'created_at',
      'expires_at',
      'last_used_at',
      'name',
      'prefix',
      'previous_secret_until',
      'revoked_at',
      'scopes',
    ]);
    assert.equal(rows[0].previous_secret_until, null, 'never rotated');
    assert.equal(list.stdout.includes(key.secret.slice(4)), false);
    assert.equal((await cli('key', 'list', '--org', 'acme')).stdout.includes(key.secret.slice(12)), false);
  });

  it('the secret never touches disk: only its digest is stored', { skip: TEST_BACKEND !== 'sqlite' }, async () => {
    const created = (await cli('key', 'create', '--org', 'acme', '--name', 'disk-check', '--scopes', 'products:read', '--json')).json();
    const dir = dirname(env.DATABASE_URL!.slice('sqlite:'.length));
    for (const file of readdirSync(dir)) {
      const bytes = readFileSync(`${dir}/${file}`);
      assert.equal(bytes.includes(created.secret.slice(4, 34)), false, `${file} holds the secret`);
    }
  });

  it('key rotate issues a new secret; revoke ends it; both are in the registry without secrets', async () => {
    const before = (await cli('key', 'list', '--org', 'acme', '--json')).json().find((k: { name: string }) => k.name === 'pipeline');
    const rotated = await cli('key', 'rotate', '--org', 'acme', '--name', 'pipeline', '--grace', '10m', '--json');
    assert.equal(rotated.code, 0, rotated.stderr);
    assert.match(rotated.json().secret, /^cra_/);
    assert.equal(rotated.json().previous_prefix, before.prefix);
    assert.deepEqual(
      Object.keys(rotated.json()),
      ['name', 'prefix', 'scopes', 'expires_at', 'secret', 'previous_prefix', 'previous_secret_until'],
      'one field says until when the old secret works',
    );
    const until = Date.parse(rotated.json().previous_secret_until);
    assert.ok(Math.abs(until - (Date.now() + 600_000)) < 60_000, 'the old secret works for the 10 minutes of grace');
    const listed = (await cli('key', 'list', '--org', 'acme', '--json')).json().find((k: { name: string }) => k.name === 'pipeline');
    assert.equal(listed.previous_secret_until, rotated.json().previous_secret_until, 'key list shows the grace');
    assert.match((await cli('key', 'list', '--org', 'acme')).stdout, /previous_secret_until/);

    // The text output says when the previous secret stops, and ends with the secret alone on its line.
    const text = await cli('key', 'rotate', '--org', 'acme', '--name', 'pipeline', '--grace', '1h');
    assert.match(text.stdout, /The previous secret \(cra_[0-9A-Za-z]+…\) keeps working until \d{4}-\d\d-\d\dT[\d:.]+Z, then stops\./);
    assert.match(text.stdout.trimEnd().split('\n').at(-1)!, /^cra_[0-9A-Za-z]{36}$/);
    const now = await cli('key', 'rotate', '--org', 'acme', '--name', 'pipeline');
    assert.match(now.stdout, /The previous secret \(cra_[0-9A-Za-z]+…\) stopped working now\./);
    const nowJson = await cli('key', 'rotate', '--org', 'acme', '--name', 'pipeline', '--json');
    assert.equal(nowJson.json().previous_secret_until, null, 'without grace the old secret stopped at once, as key list says');
    const after = (await cli('key', 'list', '--org', 'acme', '--json')).json().find((k: { name: string }) => k.name === 'pipeline');
    assert.equal(after.previous_secret_until, null, 'no grace after a rotation without one');
    const revoked = await cli('key', 'revoke', '--org', 'acme', '--name', 'pipeline', '--json');
    assert.equal(revoked.code, 0);
    assert.ok(revoked.json().revoked_at);
    assert.equal((await cli('key', 'revoke', '--org', 'acme', '--name', 'pipeline')).code, 1, 'already revoked');
    const registry = await cli('registry', 'list', '--org', 'acme', '--json');
    const actions = registry
      .json()
      .filter((e: { subject: string }) => e.subject === 'pipeline')
      .map((e: { action: string }) => e.action);
    assert.deepEqual(actions, ['key.created', 'key.rotated', 'key.rotated', 'key.rotated', 'key.rotated', 'key.revoked']);
    assert.equal(registry.stdout.includes(rotated.json().secret.slice(4)), false);
  });

  it('product add / update / archive / list', async () => {
    const added = await cli(
      'product',
      'add',
      '--org',
      'acme',
      '--sku',
      'RTR-1',
      '--name',
      'Router',
      '--gtin',
      '4006381333931',
      '--firmware-version',
      '1.0.0',
      '--end-of-support',
      '2031-06-30',
      '--json',
    );
    assert.equal(added.code, 0, added.stderr);
    assert.equal(added.json().gtin, '4006381333931', 'shown as declared');
    const recordKeys = 'id sku name gtin firmware_version end_of_support status sbom_status sbom_components markets';
    assert.equal(Object.keys(added.json()).join(' '), recordKeys, 'ProductRecord, in the order the CLI always printed');
    assert.equal(added.json().end_of_support, '2031-06-30T00:00:00.000Z');
    const updated = await cli('product', 'update', '--org', 'acme', '--sku', 'RTR-1', '--firmware-version', '1.1.0', '--json');
    assert.equal(updated.json().firmware_version, '1.1.0');
    assert.equal(updated.json().gtin, '4006381333931', 'an update that does not name the GTIN keeps it');
    const regtin = await cli('product', 'update', '--org', 'acme', '--sku', 'RTR-1', '--gtin', ' 04006381333931 ', '--json');
    assert.equal(regtin.json().gtin, '04006381333931', 'the new declared form (trimmed)');
    assert.equal((await cli('product', 'archive', '--org', 'acme', '--sku', 'RTR-1', '--json')).json().status, 'archived');
    const list = (await cli('product', 'list', '--org', 'acme', '--json')).json();
    assert.equal(list.length, 1);
    assert.equal(list[0].risk_level, 'low');
    assert.deepEqual(Object.keys(list[0]), Object.keys(ProductSchema.properties), "the API's Product, in its order");
    const bad = await cli('product', 'add', '--org', 'acme', '--sku', 'X', '--name', 'X', '--gtin', '4006381333932');
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /not a valid GTIN/);
    const dup = await cli('product', 'add', '--org', 'acme', '--sku', 'RTR-1', '--name', 'Again');
    assert.equal(dup.code, 1);
    assert.match(dup.stderr, /already has that SKU/);
  });

  it('registry verify succeeds, then names the first broken entry after tampering (exit 1)', async () => {
    const ok = await cli('registry', 'verify', '--org', 'acme', '--json');
    assert.equal(ok.code, 0);
    const entries = ok.json().entries;
    assert.deepEqual(ok.json(), { ok: true, entries });
    const database = openDatabase(env.DATABASE_URL!);
    await sql`update registry_entries set details = '{"forged":true}' where seq = 3 and org_id = (select id from organisations where slug = 'acme')`.execute(
      database.db,
    );
    await database.close();
    const broken = await cli('registry', 'verify', '--org', 'acme', '--json');
    assert.equal(broken.code, 1);
    assert.deepEqual(broken.json(), { ok: false, entries, first_broken: 3 });
    const text = await cli('registry', 'verify', '--org', 'acme');
    assert.match(text.stdout, /BROKEN: first broken entry is #3/);
  });

  // As a real process (the built executable): its exit codes and streams are the contract.
  it('errors: exit 1 with a message on stderr; usage errors exit 2; --help exits 0', async () => {
    const cli = (...args: string[]) => runCliProcess(args, env);
    const missing = await cli('key', 'list', '--org', 'nope');
    assert.equal(missing.code, 1);
    assert.equal(missing.stdout, '');
    assert.match(missing.stderr, /no organisation with slug "nope"/);
    const wildcard = await cli('key', 'create', '--org', 'acme', '--name', 'w', '--scopes', '*');
    assert.equal(wildcard.code, 1);
    assert.match(wildcard.stderr, /no wildcard/);
    assert.equal((await cli('key', 'create', '--org', 'acme')).code, 2);
    assert.equal((await cli('frobnicate')).code, 2);
    assert.equal((await cli('org', 'set', 'acme', '--intake-mode', 'maybe')).code, 2);
    assert.equal(
      (await cli('key', 'create', '--org', 'acme', '--name', 'x', '--scopes', 'products:read', '--expires-at', 'tomorrow')).code,
      2,
    );
    const help = await cli('--help');
    assert.equal(help.code, 0);
    for (const command of ['migrate', 'org', 'key', 'product', 'registry']) assert.match(help.stdout, new RegExp(`\\b${command}\\b`));
    assert.equal((await cli('key', 'rotate', '--help')).code, 0);
  });
});
