// test-tier: slow (scripts/test.mjs): npm run test:slow runs it, with CI
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { createEmptyDatabaseUrl, TEST_BACKEND } from '../helpers/db.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { startReceiver } from '../helpers/webhook-receiver.js';

const HOUR = 3_600_000;
const WORKER_ENV = {
  CONSOLE_SECRET: 'webhook-process-test-key',
  WEBHOOK_ALLOW_PRIVATE: 'true',
  WEBHOOK_POLL_MS: '100',
  WEBHOOK_TIMEOUT_MS: '1000',
  SCHEDULER_INTERVAL_MS: '200',
  LOG_LEVEL: 'warn',
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function setUp(orgArgs: string[]) {
  const db = await createEmptyDatabaseUrl();
  const env = { DATABASE_URL: db.url, ...WORKER_ENV };
  const receiver = await startReceiver();
  const cli = (...args: string[]) => runCli(args, env);
  try {
    assert.equal((await cli('org', 'create', ...orgArgs)).code, 0);
    const added = await cli('webhook', 'add', '--org', orgArgs[0]!, '--url', receiver.url, '--json');
    assert.equal(added.code, 0, added.stderr);
    receiver.secret = added.json().secret;
    const key = (await cli('key', 'create', '--org', orgArgs[0]!, '--name', 'intake', '--scopes', 'incidents:write', '--json')).json()
      .secret as string;
    return { db, env, receiver, cli, key };
  } catch (error) {
    // A listening receiver would keep the test process alive: fail fast instead of hanging.
    await receiver.close();
    await db.drop();
    throw error;
  }
}

function postIncident(server: RunningServer, key: string, description: string) {
  return fetch(`${server.url}/api/v1/external/incidents`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-cra-api-key': key },
    body: JSON.stringify({ description }),
  });
}

describe('webhook sender killed between send and record', () => {
  let ctx: Awaited<ReturnType<typeof setUp>>;
  let server: RunningServer | undefined;
  before(async () => {
    ctx = await setUp(['acme', '--intake-mode', 'case']);
  });
  after(async () => {
    await server?.stop('SIGKILL');
    await ctx?.receiver.close();
    await ctx?.db.drop();
  });

  it('delivers again after a restart, under the same webhook-id, and the receiver processes it once', async () => {
    const { receiver, env, key, cli } = ctx;
    let killed!: () => void;
    const firstArrived = new Promise<void>((resolve) => (killed = resolve));
    // The receiver does its work, but the sender dies before the answer is recorded.
    receiver.behaviour = (request) => {
      if (receiver.received.length > 1) return 200;
      if (request.verified) receiver.processed.set(request.id, JSON.parse(request.body));
      killed();
      return 'hang';
    };
    server = await startServer(env);
    assert.equal((await postIncident(server, key, 'Exploited RCE')).status, 201);
    await firstArrived;
    await server.stop('SIGKILL');
    // Nothing was recorded: the delivery is still pending under the dead instance's claim.
    const pending = (await cli('webhook', 'deliveries', '--org', 'acme', '--json')).json();
    assert.deepEqual([pending[0].status, pending[0].attempts], ['pending', 0]);
    server = await startServer(env);
    // The claim lapses (2 × timeout + 2 s) and the new process sends it again.
    await receiver.waitFor(2, 15_000);
    assert.equal(receiver.received[1]!.id, receiver.received[0]!.id);
    assert.equal(receiver.received[1]!.body, receiver.received[0]!.body);
    assert.equal(receiver.received[1]!.verified, true);
    assert.equal(receiver.processed.size, 1);
    await sleep(1_000);
    assert.equal(receiver.received.length, 2, 'delivered twice at most: once unacknowledged, once acknowledged');
    const done = (await cli('webhook', 'deliveries', '--org', 'acme', '--json')).json();
    assert.deepEqual([done[0].status, done[0].attempts], ['succeeded', 1]);
    assert.equal(await server.stop(), 0, 'SIGTERM stops the workers and exits cleanly');
    server = undefined;
  });
});

describe('webhooks with two instances on one PostgreSQL', { skip: TEST_BACKEND !== 'postgres' }, () => {
  let ctx: Awaited<ReturnType<typeof setUp>>;
  let servers: RunningServer[] = [];
  before(async () => {
    ctx = await setUp(['multi', '--intake-mode', 'case']);
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.stop('SIGKILL')));
    await ctx?.receiver.close();
    await ctx?.db.drop();
  });

  it('delivers each message once, and fires each clock threshold once across instances and a restart', async () => {
    const { receiver, env, key, cli } = ctx;
    servers = await Promise.all([startServer(env), startServer(env)]);
    // 40 case.opened events, half through each instance: both dispatchers claim from one table.
    const responses = await Promise.all(Array.from({ length: 40 }, (_, i) => postIncident(servers[i % 2]!, key, `signal ${i}`)));
    assert.deepEqual(new Set(responses.map((r) => r.status)), new Set([201]));
    // Three more cases whose early warning is 5 h away, 30 min away and 1 h past due.
    await cli('org', 'set', 'multi', '--intake-mode', 'signal');
    const now = Date.now();
    const clockCases: number[] = [];
    for (const hoursLeft of [5, 0.5, -1]) {
      const n = ((await (await postIncident(servers[0]!, key, `clock ${hoursLeft}`)).json()) as { incident_number: number })
        .incident_number;
      const opened = await cli(
        'case',
        'open',
        '--org',
        'multi',
        '--signal',
        String(n),
        '--notifiable',
        '--aware-at',
        new Date(now - (24 - hoursLeft) * HOUR).toISOString(),
      );
      assert.equal(opened.code, 0, opened.stderr);
      clockCases.push(n);
    }
    await receiver.waitFor(40 + 3 + 3, 30_000);
    // Several scheduler ticks on both instances, then a restart of one, then more ticks.
    await sleep(1_000);
    assert.equal(await servers[0]!.stop(), 0);
    servers[0] = await startServer(env);
    await sleep(1_500);
    const messages = receiver.received.map((r) => ({
      id: r.id,
      verified: r.verified,
      ...(JSON.parse(r.body) as { type: string; data: Record<string, unknown> }),
    }));
    assert.equal(
      messages.every((m) => m.verified),
      true,
    );
    assert.equal(new Set(messages.map((m) => m.id)).size, messages.length, 'no message delivered twice');
    assert.equal(messages.filter((m) => m.type === 'case.opened').length, 40 + 3);
    const clock = messages
      .filter((m) => m.type.startsWith('case.stage'))
      .map((m) => [m.data.incident_number, m.type, m.data.threshold ?? null]);
    assert.deepEqual(clock.sort(), [
      [clockCases[0], 'case.stage_due_soon', '6h'],
      [clockCases[1], 'case.stage_due_soon', '1h'],
      [clockCases[2], 'case.stage_overdue', null],
    ]);
  });
});
