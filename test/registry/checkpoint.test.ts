import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Database } from '../../src/db/index.js';
import { hashEntry } from '../../src/registry/registry-chain.js';
import { createServices } from '../../src/services.js';
import { runCli } from '../helpers/cli.js';
import { allowDirectWrites, createTestDatabase, TEST_BACKEND, type TestDatabase } from '../helpers/db.js';

// It forges registry entries directly, outside Database.transaction.
allowDirectWrites();

// decisions §8: a head signed with a key kept outside the database proves that the chain still
// extends it, so an attacker with write access who rewrites or truncates the whole chain (hashes
// recomputed, organisation head moved along, plain `registry verify` satisfied) is caught.

function ed25519Key(): string {
  const { privateKey } = generateKeyPairSync('ed25519');
  return privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64');
}

async function orgId(database: Database, slug: string): Promise<string> {
  return (await database.db.selectFrom('organisations').select('id').where('slug', '=', slug).executeTakeFirstOrThrow()).id;
}

/** What an attacker with database access does: edit entry 2, re-chain every entry, move the head. */
async function rewriteChain(database: Database, slug: string): Promise<void> {
  const id = await orgId(database, slug);
  const rows = await database.db.selectFrom('registry_entries').selectAll().where('org_id', '=', id).orderBy('seq').execute();
  let prev = rows[0]!.prev_hash;
  for (const row of rows) {
    const details = row.seq === 2 ? JSON.stringify({ forged: true }) : row.details;
    const hash = hashEntry({ ...row, details, prev_hash: prev });
    await database.db
      .updateTable('registry_entries')
      .set({ details, prev_hash: prev, hash })
      .where('org_id', '=', id)
      .where('seq', '=', row.seq)
      .execute();
    prev = hash;
  }
  await database.db.updateTable('organisations').set({ registry_head: prev }).where('id', '=', id).execute();
}

/** Deletes every entry after `keep` and moves the head back to it. */
async function truncateChain(database: Database, slug: string, keep: number): Promise<void> {
  const id = await orgId(database, slug);
  await database.db.deleteFrom('registry_entries').where('org_id', '=', id).where('seq', '>', keep).execute();
  const last = await database.db
    .selectFrom('registry_entries')
    .select('hash')
    .where('org_id', '=', id)
    .where('seq', '=', keep)
    .executeTakeFirstOrThrow();
  await database.db.updateTable('organisations').set({ registry_seq: keep, registry_head: last.hash }).where('id', '=', id).execute();
}

describe(`cra-admin registry checkpoint / verify --checkpoint (${TEST_BACKEND})`, () => {
  let testDb: TestDatabase;
  let dir: string;
  let env: Record<string, string>;
  const cli = (...args: string[]) => runCli(args, env);

  before(async () => {
    testDb = await createTestDatabase();
    dir = mkdtempSync(join(tmpdir(), 'cra-checkpoint-'));
    env = { DATABASE_URL: testDb.url, REGISTRY_SIGNING_KEY: ed25519Key() };
    const { orgs, products } = createServices({ database: testDb.database });
    for (const slug of ['acme', 'trunc', 'other']) {
      await orgs.createOrg({ slug });
      for (let i = 1; i <= 4; i++) await products.addProduct(slug, `P-${i}`, { name: `Product ${i}` });
    }
  });
  after(async () => {
    await testDb.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function checkpoint(slug: string): Promise<string> {
    const res = await cli('registry', 'checkpoint', '--org', slug);
    assert.equal(res.code, 0, res.stderr);
    const file = join(dir, `${slug}-${Date.now()}.json`);
    writeFileSync(file, res.stdout);
    return file;
  }

  it('refuses to sign without REGISTRY_SIGNING_KEY, or with a key that is not Ed25519', async () => {
    const none = await runCli(['registry', 'checkpoint', '--org', 'acme'], { DATABASE_URL: testDb.url });
    assert.equal(none.code, 1);
    assert.match(none.stderr, /REGISTRY_SIGNING_KEY is not set/);
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    const wrong = await runCli(['registry', 'checkpoint', '--org', 'acme'], { DATABASE_URL: testDb.url, REGISTRY_SIGNING_KEY: rsa });
    assert.equal(wrong.code, 1);
    assert.match(wrong.stderr, /must be an Ed25519 key/);
  });

  it('signs the head; the chain extends it after further entries; the file holds no secret', async () => {
    const file = await checkpoint('acme');
    const res = await cli('registry', 'checkpoint', '--org', 'acme', '--json');
    const cp = res.json();
    assert.equal(cp.org, 'acme');
    assert.equal(cp.sequence, 5, 'organisation created + 4 products');
    assert.match(cp.hash, /^[0-9a-f]{64}$/);
    assert.ok(!res.stdout.includes(env.REGISTRY_SIGNING_KEY!), 'the private key never leaves the environment');
    await createServices({ database: testDb.database }).products.addProduct('acme', 'P-5', { name: 'Product 5' });
    const ok = await cli('registry', 'verify', '--org', 'acme', '--checkpoint', file, '--json');
    assert.equal(ok.code, 0, ok.stdout + ok.stderr);
    assert.deepEqual(ok.json(), { ok: true, entries: 6, checkpoint_sequence: 5 });
    const text = await cli('registry', 'verify', '--org', 'acme', '--checkpoint', file);
    assert.match(text.stdout, /chain intact and extending the checkpoint at entry #5/);
  });

  it('a chain rewritten as a whole passes plain verify but not the checkpoint', async () => {
    const file = await checkpoint('acme');
    await rewriteChain(testDb.database, 'acme');
    const plain = await cli('registry', 'verify', '--org', 'acme', '--json');
    assert.equal(plain.code, 0, 'the rewrite is self-consistent: plain verification cannot see it');
    const res = await cli('registry', 'verify', '--org', 'acme', '--checkpoint', file, '--json');
    assert.equal(res.code, 1);
    assert.equal(res.json().ok, false);
    assert.match(res.json().reason, /entry #6 no longer has the checkpoint's hash: the chain was rewritten/);
  });

  it('a truncated chain passes plain verify but not the checkpoint', async () => {
    const file = await checkpoint('trunc');
    await truncateChain(testDb.database, 'trunc', 3);
    assert.equal((await cli('registry', 'verify', '--org', 'trunc')).code, 0);
    const res = await cli('registry', 'verify', '--org', 'trunc', '--checkpoint', file);
    assert.equal(res.code, 1);
    assert.match(
      res.stdout,
      /does NOT extend the checkpoint at entry #5: the chain ends before entry #5 of the checkpoint: it was truncated/,
    );
  });

  it('refuses an edited checkpoint, one signed by another key, another organisation’s, and a file that is none', async () => {
    const file = await checkpoint('other');
    const cp = JSON.parse((await cli('registry', 'checkpoint', '--org', 'other')).stdout);
    const edited = join(dir, 'edited.json');
    writeFileSync(edited, JSON.stringify({ ...cp, sequence: 2 }));
    const forged = await cli('registry', 'verify', '--org', 'other', '--checkpoint', edited, '--json');
    assert.equal(forged.code, 1);
    assert.equal(forged.json().reason, 'the checkpoint is not signed by REGISTRY_SIGNING_KEY');
    const otherKey = await runCli(['registry', 'verify', '--org', 'other', '--checkpoint', file, '--json'], {
      ...env,
      REGISTRY_SIGNING_KEY: ed25519Key(),
    });
    assert.equal(otherKey.code, 1);
    assert.equal(otherKey.json().reason, 'the checkpoint is not signed by REGISTRY_SIGNING_KEY');
    const wrongOrg = await cli('registry', 'verify', '--org', 'acme', '--checkpoint', file, '--json');
    assert.equal(wrongOrg.code, 1);
    assert.match(wrongOrg.json().reason, /belongs to organisation "other"/);
    const junk = join(dir, 'junk.json');
    writeFileSync(junk, 'not json');
    const bad = await cli('registry', 'verify', '--org', 'other', '--checkpoint', junk);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /not JSON/);
    const missing = await cli('registry', 'verify', '--org', 'other', '--checkpoint', join(dir, 'nope.json'));
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /cannot read the checkpoint file .*ENOENT/);
  });
});
