import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AppError } from '../../src/errors.js';
import { createOrgService } from '../../src/orgs/orgs.service.js';
import { runCli } from '../helpers/cli.js';
import { createEmptyDatabaseUrl, createTestDatabase } from '../helpers/db.js';

// Two creates of one slug at once: both pass the "already exists?" check, one insert hits the
// unique index. That must be the same clear conflict as a create after the first committed.
describe('concurrent creates of one organisation slug', () => {
  it('the loser gets AppError conflict, not a raw unique violation', async (t) => {
    const db = await createTestDatabase();
    t.after(() => db.drop());
    const orgs = createOrgService(db.database);
    // Both calls check before either inserts (the transaction is queued / on another connection).
    const outcomes = await Promise.allSettled([orgs.createOrg({ slug: 'twin' }), orgs.createOrg({ slug: 'twin' })]);
    const failed = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    assert.equal(failed.length, 1, 'exactly one create wins');
    const error = failed[0]!.reason as unknown;
    assert.ok(error instanceof AppError, `expected AppError, got ${String(error)}`);
    assert.equal(error.code, 'conflict');
    assert.equal(error.message, 'organisation "twin" already exists');
    assert.equal((await orgs.listOrgs()).filter((o) => o.slug === 'twin').length, 1);
  });

  describe('through cra-admin', () => {
    let env: Record<string, string>;
    let drop: () => Promise<void>;
    before(async () => {
      const db = await createEmptyDatabaseUrl();
      drop = db.drop;
      env = { DATABASE_URL: db.url };
      assert.equal((await runCli(['migrate'], env)).code, 0);
    });
    after(async () => drop?.());

    it('one of several simultaneous `org create` exits 0, the others exit 1 with a readable message', async () => {
      const runs = await Promise.all(Array.from({ length: 4 }, () => runCli(['org', 'create', 'racers'], env)));
      assert.equal(runs.filter((r) => r.code === 0).length, 1, runs.map((r) => r.stderr).join('\n'));
      for (const run of runs.filter((r) => r.code !== 0)) {
        assert.equal(run.code, 1);
        assert.equal(run.stderr, 'cra-admin: organisation "racers" already exists\n');
      }
    });
  });
});
