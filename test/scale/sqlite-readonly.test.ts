// test-tier: slow (scripts/test.mjs): npm run test:slow runs it, with CI
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import { runCli } from '../helpers/cli.js';
import { TEST_BACKEND } from '../helpers/db.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { type FailingDisk, failingDiskSkip, mountFailingDisk, mountSmallDisk, STORAGE_SKIP, type SmallDisk } from '../helpers/storage.js';
import { assertNothingLost, startWriteLoad, type WriteLoad } from '../helpers/write-load.js';

// The SQLite database's location is read-only when the server starts (a filesystem remounted
// read-only, a volume attached read-only): the server listens anyway, not ready, answers 503
// with Retry-After and the JSON error body, logs the real cause once, and becomes ready by
// itself once the location is writable again. Black-box, against the server as a process, on a
// private tmpfs remounted read-only (needs root). A remount is refused while a file on it is
// open for writing, which is why the location turns read-only between two runs of the server.
const skip = TEST_BACKEND !== 'sqlite' ? 'SQLite backend only' : STORAGE_SKIP;

describe('SQLite on a read-only location', { skip }, () => {
  let disk: SmallDisk;
  let server: RunningServer | undefined;
  let env: Record<string, string>;
  let key: string;
  const before3: number[] = [];

  before(async () => {
    disk = mountSmallDisk(8);
    env = { DATABASE_URL: `sqlite:${join(disk.dir, 'cra.db')}` };
    assert.equal((await runCli(['org', 'create', 'ro'], env)).code, 0);
    key = (await runCli(['key', 'create', '--org', 'ro', '--name', 'k', '--scopes', 'incidents:write,products:read', '--json'], env)).json()
      .secret as string;
    // A first run writes three incidents, then stops: nothing is open on the disk any more.
    const first = await startServer({ ...env, LOG_LEVEL: 'warn' });
    for (let i = 0; i < 3; i++) {
      const res = await post(first.url, key);
      assert.equal(res.status, 201);
      before3.push(((await res.json()) as { incident_number: number }).incident_number);
    }
    assert.equal(await first.stop(), 0);
    disk.readOnly();
  });
  after(async () => {
    await server?.stop();
    try {
      disk?.writable();
    } catch {
      // already writable
    }
    disk?.unmount();
  });

  function post(url: string, secret: string) {
    return fetch(`${url}/api/v1/external/incidents`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-cra-api-key': secret },
      body: JSON.stringify({ description: 'while read-only?' }),
    });
  }

  it('starts anyway, not ready: /readyz 503, API operations 503 with Retry-After and the error body', async () => {
    server = await startServer({ ...env, LOG_LEVEL: 'info' });
    assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
    const ready = await fetch(`${server.url}/readyz`);
    assert.equal(ready.status, 503);
    assert.equal(((await ready.json()) as { database: string }).database, 'unavailable');
    for (const res of [
      await post(server.url, key),
      await fetch(`${server.url}/api/v1/external/products`, { headers: { 'x-cra-api-key': key } }),
    ]) {
      assert.equal(res.status, 503);
      assert.equal(res.headers.get('retry-after'), '2');
      const body = (await res.json()) as Record<string, unknown>;
      assert.equal(body.code, 'service_unavailable');
      assert.equal(typeof body.errore, 'string');
      assert.equal(body.request_id, res.headers.get('x-request-id'));
    }
    // Still refusing a while later (the retries run meanwhile), the process alive.
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal((await post(server.url, key)).status, 503);
    assert.equal(server.process.exitCode, null);
  });

  it('logs the real cause once', () => {
    const lines = server!.logs().split('\n');
    const cause = lines.filter((l) => l.includes('cannot apply migrations yet'));
    assert.equal(cause.length, 1, cause.join('\n'));
    assert.match(cause[0]!, /SQLITE_READONLY: the database location cannot be written \(EROFS/);
    assert.equal(lines.filter((l) => l.includes('"level":50') && !l.includes('cannot apply migrations yet')).length, 0);
  });

  it('becomes ready by itself once the location is writable; nothing acknowledged is lost', async () => {
    disk.writable();
    const load = startWriteLoad(server!.url, key, 4);
    try {
      await load.nextSuccess(20_000);
      await load.nextSuccess();
    } finally {
      await load.stop();
    }
    assert.equal((await fetch(`${server!.url}/readyz`)).status, 200);
    assert.deepEqual(load.problems, []);
    assert.match(server!.logs(), /database reachable: migrations applied, ready/);

    const db = new SQLite(join(disk.dir, 'cra.db'), { readonly: true });
    const stored = db
      .prepare("select incident_number from signals where org_id = (select id from organisations where slug = 'ro')")
      .pluck()
      .all() as number[];
    db.close();
    assertNothingLost([...before3, ...load.acked], stored);
    const verify = await runCli(['registry', 'verify', '--org', 'ro', '--json'], env);
    assert.equal(verify.code, 0, verify.stdout);
  });
});

// The location turns read-only under the running server: a private ext4 filesystem on a loop
// device records an error and, mounted errors=remount-ro, becomes read-only while the database
// is open for writing (as a failing disk does; a plain remount would be refused). Writes answer
// 503, /readyz 503, the cause is logged once; the server lets go of its files, so the operator
// can unmount and repair the filesystem; once it is mounted again the server recovers by itself
// and every acknowledged write is there.
const failingSkip = TEST_BACKEND !== 'sqlite' ? 'SQLite backend only' : failingDiskSkip();

describe('SQLite location turning read-only under the running server', { skip: failingSkip }, () => {
  let disk: FailingDisk;
  let server: RunningServer;
  let load: WriteLoad;
  let env: Record<string, string>;
  /** How many writes were acknowledged before the filesystem failed. */
  let ackedBeforeFailure = 0;
  /** How many were acknowledged when the repaired filesystem was mounted again. */
  let ackedAtRepair = 0;

  before(async () => {
    disk = mountFailingDisk(32);
    env = { DATABASE_URL: `sqlite:${join(disk.dir, 'cra.db')}` };
    assert.equal((await runCli(['org', 'create', 'fail'], env)).code, 0);
    const key = (await runCli(['key', 'create', '--org', 'fail', '--name', 'k', '--scopes', 'incidents:write', '--json'], env)).json()
      .secret as string;
    server = await startServer({ ...env, LOG_LEVEL: 'info', RATE_LIMIT_PER_MINUTE: '1000000' });
    load = startWriteLoad(server.url, key, 4);
    await load.nextSuccess();
  });
  after(async () => {
    await load?.stop();
    await server?.stop();
    disk?.destroy();
  });

  it('answers 503 while read-only, lets go of its files for the repair, and recovers by itself once mounted again', async () => {
    ackedBeforeFailure = load.acked.length;
    disk.fail();
    await load.nextUnavailable();
    const ready = await fetch(`${server.url}/readyz`);
    assert.equal(ready.status, 503);
    assert.equal(((await ready.json()) as { database: string }).database, 'unavailable');

    // Nothing of the server keeps the filesystem busy: the operator can unmount and repair it.
    const deadline = Date.now() + 20_000;
    while (!disk.tryUnmount()) {
      if (Date.now() > deadline) assert.fail('the server still holds files open on the failed filesystem');
      await new Promise((r) => setTimeout(r, 100));
    }
    await load.nextUnavailable();
    assert.equal((await fetch(`${server.url}/readyz`)).status, 503);

    ackedAtRepair = load.acked.length;
    disk.repairAndMount();
    await load.nextSuccess(20_000);
    await load.nextSuccess();
    assert.equal((await fetch(`${server.url}/readyz`)).status, 200);
    assert.equal(server.process.exitCode, null);
    assert.deepEqual(load.problems, []);
  });

  it('logs the real cause once and loses no write acknowledged before the failure or after the repair', async () => {
    await load.stop();
    const lines = server.logs().split('\n');
    const down = lines.filter((l) => l.includes('database unavailable'));
    assert.equal(down.length, 1, down.join('\n'));
    assert.match(down[0]!, /SQLITE_(IOERR|READONLY)\w*: .*the database location cannot be written \(EROFS: read-only file system/);
    assert.ok(lines.some((l) => l.includes('database available again')));

    const db = new SQLite(join(disk.dir, 'cra.db'), { readonly: true });
    const stored = db.prepare('select incident_number from signals').pluck().all() as number[];
    db.close();
    assert.ok(load.acked.length > 0 && load.unavailable > 0);
    // Every write acknowledged before the failure was synced before it and is stored. A write
    // acknowledged in the instant between the error and SQLite's first failing write may not
    // be: ext4, once an error has turned it read-only, answers fsync with success without
    // writing anything (fs/ext4/fsync.c), so no program can know that commit did not reach the
    // disk. Its number may then be handed out again after the repair; numbering stays gap-free.
    const before = load.acked.slice(0, ackedBeforeFailure);
    assert.ok(before.length > 0);
    const storedSet = new Set(stored);
    assert.deepEqual(
      before.filter((n) => !storedSet.has(n)),
      [],
      'a write acknowledged before the failure is missing',
    );
    const sorted = [...stored].sort((a, b) => a - b);
    assert.deepEqual(
      sorted,
      Array.from({ length: sorted.length }, (_, i) => i + 1),
      'incident numbers are not gap-free',
    );
    // Every write acknowledged after the repair is stored as well.
    const afterRepair = load.acked.slice(ackedAtRepair);
    assert.ok(afterRepair.length > 0);
    assert.deepEqual(
      afterRepair.filter((n) => !storedSet.has(n)),
      [],
      'a write acknowledged after the repair is missing',
    );
    const verify = await runCli(['registry', 'verify', '--org', 'fail', '--json'], env);
    assert.equal(verify.code, 0, verify.stdout);
  });
});
