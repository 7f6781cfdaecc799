import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { createEmptyDatabaseUrl, TEST_BACKEND } from '../helpers/db.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

// `cra-admin webhook …` beside the server process that delivers.
describe('cra-admin webhook', () => {
  let env: Record<string, string>;
  let drop: () => Promise<void>;
  let server: RunningServer;
  let receiver: Receiver;
  let endpointId: string;
  let secret: string;
  const cli = (...args: string[]) => runCli(args, env);

  before(async () => {
    const db = await createEmptyDatabaseUrl();
    drop = db.drop;
    env = { DATABASE_URL: db.url, WEBHOOK_ALLOW_PRIVATE: 'true', CONSOLE_SECRET: 'webhook-cli-test-key' };
    receiver = await startReceiver();
    assert.equal((await cli('org', 'create', 'acme', '--intake-mode', 'case')).code, 0);
    assert.equal((await cli('org', 'create', 'other')).code, 0);
  });
  after(async () => {
    await server?.stop();
    await receiver?.close();
    await drop?.();
  });

  it('refuses a private or plain-http URL without WEBHOOK_ALLOW_PRIVATE, and an unknown event type', async () => {
    const strict = await runCli(['webhook', 'add', '--org', 'acme', '--url', 'https://localhost/hooks'], {
      DATABASE_URL: env.DATABASE_URL!,
    });
    assert.equal(strict.code, 1);
    assert.match(strict.stderr, /"localhost" resolves to .*non-public address/);
    const http = await runCli(['webhook', 'add', '--org', 'acme', '--url', 'http://127.0.0.1/hooks'], { DATABASE_URL: env.DATABASE_URL! });
    assert.match(http.stderr, /must use https/);
    const unknown = await cli('webhook', 'add', '--org', 'acme', '--url', receiver.url, '--events', 'case.opened,case.exploded');
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /unknown event type "case.exploded"/);
    assert.equal((await cli('webhook', 'add', '--org', 'acme')).code, 2, 'a missing --url is a usage error');
    if (TEST_BACKEND === 'postgres') {
      // No key to seal the secret under (SQLite would generate one beside the database).
      const unkeyed = await runCli(['webhook', 'add', '--org', 'acme', '--url', receiver.url], {
        DATABASE_URL: env.DATABASE_URL!,
        WEBHOOK_ALLOW_PRIVATE: 'true',
      });
      assert.equal(unkeyed.code, 1);
      assert.match(unkeyed.stderr, /CONSOLE_SECRET is not set/);
    }
    assert.deepEqual((await cli('webhook', 'list', '--org', 'acme', '--json')).json(), []);
  });

  it('adds an endpoint and prints its secret once; list never shows it', async () => {
    const added = await cli('webhook', 'add', '--org', 'acme', '--url', receiver.url, '--events', 'case.opened,case.closed', '--json');
    assert.equal(added.code, 0, added.stderr);
    const body = added.json();
    assert.match(body.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.deepEqual(body.events, ['case.opened', 'case.closed']);
    assert.equal(body.status, 'active');
    endpointId = body.id;
    secret = body.secret;
    receiver.secret = secret;
    const text = await cli('webhook', 'list', '--org', 'acme');
    assert.match(text.stdout, new RegExp(endpointId));
    const list = await cli('webhook', 'list', '--org', 'acme', '--json');
    assert.equal(list.json().length, 1);
    assert.equal(list.stdout.includes(secret), false);
    assert.equal(list.stdout.includes('whsec_'), false);
    const elsewhere = await cli('webhook', 'disable', '--org', 'other', '--endpoint', endpointId);
    assert.equal(elsewhere.code, 1, "another organisation's endpoint is not found");
    assert.match(elsewhere.stderr, /no webhook endpoint/);
  });

  it('delivers from the server process, logs the attempt, and replays it with the same webhook-id', async () => {
    server = await startServer({ ...env, WEBHOOK_POLL_MS: '100', LOG_LEVEL: 'warn' });
    const key = (await cli('key', 'create', '--org', 'acme', '--name', 'intake', '--scopes', 'incidents:write', '--json')).json()
      .secret as string;
    const response = await fetch(`${server.url}/api/v1/external/incidents`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-cra-api-key': key },
      body: JSON.stringify({ description: 'Exploited RCE' }),
    });
    assert.equal(response.status, 201);
    await receiver.waitFor(1);
    assert.equal(receiver.received[0]!.verified, true);
    // The receiver answers before the server records the attempt: wait for the record.
    const succeeded = async () => {
      let listed = (await cli('webhook', 'deliveries', '--org', 'acme', '--json')).json();
      for (let i = 0; i < 50 && listed[0]?.status !== 'succeeded'; i++) {
        await new Promise((r) => setTimeout(r, 100));
        listed = (await cli('webhook', 'deliveries', '--org', 'acme', '--json')).json();
      }
      return listed;
    };
    const deliveries = await succeeded();
    assert.equal(deliveries.length, 1);
    assert.equal(deliveries[0].type, 'case.opened');
    assert.equal(deliveries[0].status, 'succeeded');
    assert.equal(deliveries[0].attempt_log.length, 1);
    assert.equal(deliveries[0].attempt_log[0].status_code, 200);
    assert.equal(typeof deliveries[0].attempt_log[0].duration_ms, 'number');
    const replay = await cli('webhook', 'replay', '--org', 'acme', '--delivery', deliveries[0].id, '--json');
    assert.equal(replay.code, 0, replay.stderr);
    await receiver.waitFor(2);
    assert.equal(receiver.received[1]!.id, receiver.received[0]!.id);
    assert.equal(receiver.processed.size, 1, 'the receiver dedups the replay by webhook-id');
    assert.equal((await succeeded())[0].status, 'succeeded');
    const table = await cli('webhook', 'deliveries', '--org', 'acme', '--status', 'succeeded');
    assert.match(table.stdout, /case\.opened/);
    assert.equal((await cli('webhook', 'deliveries', '--org', 'acme', '--limit', 'x')).code, 2);
    assert.equal((await cli('webhook', 'deliveries', '--org', 'acme', '--status', 'lost')).code, 1);
  });

  it('rotates the secret with a grace (both signatures), then disables the endpoint', async () => {
    const rotated = await cli('webhook', 'rotate-secret', '--org', 'acme', '--endpoint', endpointId, '--grace', '2h', '--json');
    assert.equal(rotated.code, 0, rotated.stderr);
    const next = rotated.json().secret as string;
    assert.notEqual(next, secret);
    assert.ok(rotated.json().previous_secret_expires_at);
    const text = await cli('webhook', 'rotate-secret', '--org', 'acme', '--endpoint', endpointId, '--grace', '0s');
    assert.match(text.stdout, /Signing secret \(shown once/);
    assert.equal(text.stdout.includes('keeps signing beside it'), false, 'no grace: the old secret stops at once');
    const disabled = await cli('webhook', 'disable', '--org', 'acme', '--endpoint', endpointId, '--json');
    assert.equal(disabled.json().status, 'disabled');
    const again = await cli('webhook', 'disable', '--org', 'acme', '--endpoint', endpointId);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /already disabled/);
    const registry = (await cli('registry', 'list', '--org', 'acme', '--json')).stdout;
    assert.match(registry, /webhook\.endpoint_added/);
    assert.match(registry, /webhook\.secret_rotated/);
    assert.equal(registry.includes(secret) || registry.includes(next), false, 'no secret in the registry');
  });

  it('enables the disabled endpoint again and deletes it with its log; not across organisations', async () => {
    assert.equal((await cli('webhook', 'enable', '--org', 'other', '--endpoint', endpointId)).code, 1, 'another organisation: not found');
    const enabled = await cli('webhook', 'enable', '--org', 'acme', '--endpoint', endpointId, '--json');
    assert.equal(enabled.code, 0, enabled.stderr);
    assert.equal(enabled.json().status, 'active');
    assert.equal(enabled.json().disabled_reason, null);
    const again = await cli('webhook', 'enable', '--org', 'acme', '--endpoint', endpointId);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /already enabled/);
    assert.equal((await cli('webhook', 'delete', '--org', 'other', '--endpoint', endpointId)).code, 1);
    const deleted = await cli('webhook', 'delete', '--org', 'acme', '--endpoint', endpointId);
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.match(deleted.stdout, /deleted webhook endpoint/);
    assert.deepEqual((await cli('webhook', 'list', '--org', 'acme', '--json')).json(), []);
    assert.deepEqual((await cli('webhook', 'deliveries', '--org', 'acme', '--json')).json(), [], 'its log went with it');
    const registry = (await cli('registry', 'list', '--org', 'acme', '--json')).stdout;
    assert.match(registry, /webhook\.endpoint_enabled/);
    assert.match(registry, /webhook\.endpoint_deleted/);
  });
});
