import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { Kysely } from 'kysely';
import { migrateToLatest } from '../../src/db/index.js';
import { createServices } from '../../src/services.js';
import { createSecretBox } from '../../src/shared/secret-box.js';
import { allowDirectWrites, databaseMigratedTo, TEST_BACKEND } from '../helpers/db.js';

// A migrator of its own writes outside Database.transaction, and so do the legacy rows.
allowDirectWrites();

// Migration 017 seals the credit line of every disclosure report stored before it, under the
// key that sealed the reporter's name and contact: afterwards the column holds no plain text,
// and the service opens the line with the identity.

const SECRET = 'migration-017-console-secret';
const AT = '2026-11-01T00:00:00.000Z';

/** An organisation with `reports` disclosure reports as 016 stored them: sealed identity, credit line in the clear. */
async function legacyReports(legacy: Kysely<any>, credits: Array<string | null>): Promise<void> {
  const box = createSecretBox(SECRET, 'cra-disclosure');
  const orgId = randomUUID();
  await legacy
    .insertInto('organisations')
    .values({
      id: orgId,
      slug: 'acme',
      name: 'Acme',
      intake_mode: 'signal',
      created_at: AT,
      registry_head: '',
      incident_seq: credits.length,
    })
    .execute();
  for (const [i, credit] of credits.entries()) {
    const signalId = randomUUID();
    await legacy
      .insertInto('signals')
      .values({
        id: signalId,
        org_id: orgId,
        incident_number: i + 1,
        status: 'INCOMING',
        description: `report ${i + 1}`,
        received_at: AT,
        source: 'disclosure',
        reporter_name: box.seal(`Reporter ${i + 1}`),
        reporter_contact: null,
      })
      .execute();
    await legacy
      .insertInto('disclosure_reports')
      .values({ signal_id: signalId, org_id: orgId, token_digest: `digest-${i}`, credit, created_at: AT })
      .execute();
  }
}

describe(`migration 017 on a database that holds disclosure reports (${TEST_BACKEND})`, () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('seals every credit line under the identity key; the service opens it with the identity', async () => {
    const { database, remove } = await databaseMigratedTo('016-name-prefixed-keys');
    cleanups.push(remove);
    await legacyReports(database.db as unknown as Kysely<any>, ['R. Researcher', null, 'Renée « the finder »']);

    assert.equal((await migrateToLatest(database, { consoleSecret: SECRET }))[0], '017-sealed-credit-lines');

    const rows = await database.db
      .selectFrom('disclosure_reports')
      .select(['token_digest', 'sealed_credit'])
      .orderBy('token_digest')
      .execute();
    assert.equal(rows[1]!.sealed_credit, null, 'no credit line stays none');
    for (const row of [rows[0]!, rows[2]!]) {
      assert.match(row.sealed_credit!, /^v1\./);
      assert.doesNotMatch(row.sealed_credit!, /Researcher|Renée|finder/);
    }
    const attachmentsDir = mkdtempSync(join(tmpdir(), 'cra-migration-017-'));
    cleanups.push(() => rmSync(attachmentsDir, { recursive: true, force: true }));
    const services = createServices({ database, console: { secret: SECRET, idleMinutes: 30 }, attachmentsDir });
    cleanups.push(() => services.close());
    assert.deepEqual(await services.disclosure.readIdentity('acme', 1), { name: 'Reporter 1', contact: null, credit: 'R. Researcher' });
    assert.deepEqual(await services.disclosure.readIdentity('acme', 2), { name: 'Reporter 2', contact: null, credit: null });
    assert.equal((await services.disclosure.readIdentity('acme', 3)).credit, 'Renée « the finder »');
  });

  it('stops, naming CONSOLE_SECRET, when there is a credit line to seal and no key', async () => {
    const { database, remove } = await databaseMigratedTo('016-name-prefixed-keys');
    cleanups.push(remove);
    await legacyReports(database.db as unknown as Kysely<any>, ['R. Researcher']);
    await assert.rejects(migrateToLatest(database), /migration 017 seals the credit lines .*: set CONSOLE_SECRET/);
    // Nothing changed meanwhile: the start's next attempt, with the key, seals them.
    assert.equal((await migrateToLatest(database, { consoleSecret: SECRET }))[0], '017-sealed-credit-lines');
    const [row] = await database.db.selectFrom('disclosure_reports').select('sealed_credit').execute();
    assert.match(row!.sealed_credit!, /^v1\./);
  });

  it('needs no key where there is nothing to seal', async () => {
    const { database, remove } = await databaseMigratedTo('016-name-prefixed-keys');
    cleanups.push(remove);
    await legacyReports(database.db as unknown as Kysely<any>, [null]);
    assert.equal((await migrateToLatest(database))[0], '017-sealed-credit-lines');
  });
});
