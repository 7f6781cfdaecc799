import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { createEmptyDatabaseUrl } from '../helpers/db.js';

describe('cra-admin user', () => {
  let env: Record<string, string>;
  let drop: () => Promise<void>;
  const cli = (...args: string[]) => runCli(args, env);

  before(async () => {
    const db = await createEmptyDatabaseUrl();
    env = { DATABASE_URL: db.url, PUBLIC_URL: 'https://cra.example.com/' };
    drop = db.drop;
    assert.equal((await cli('org', 'create', 'acme')).code, 0);
  });
  after(async () => drop?.());

  it('invite prints a one-time link on PUBLIC_URL valid 72 h; --json has exactly the documented fields', async () => {
    const text = await cli('user', 'invite', '--org', 'acme', '--email', 'Ana@Example.com', '--role', 'owner');
    assert.equal(text.code, 0, text.stderr);
    assert.match(
      text.stdout,
      /^Invitation for ana@example\.com \(owner of acme\), single use, valid until \d{4}-.+Z:\nhttps:\/\/cra\.example\.com\/console\/invite\/[A-Za-z0-9_-]{43}\n$/,
    );
    const json = await cli('user', 'invite', '--org', 'acme', '--email', 'bo@example.com', '--role', 'viewer', '--json');
    const invitation = json.json();
    assert.deepEqual(Object.keys(invitation).sort(), ['email', 'expires_at', 'org', 'role', 'url']);
    assert.equal(invitation.role, 'viewer');
    assert.ok(Math.abs(Date.parse(invitation.expires_at) - Date.now() - 72 * 3_600_000) < 60_000);
    const bad = await cli('user', 'invite', '--org', 'acme', '--email', 'not-an-email', '--role', 'owner');
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /is not an e-mail address/);
    const badRole = await cli('user', 'invite', '--org', 'acme', '--email', 'c@example.com', '--role', 'god');
    assert.match(badRole.stderr, /role must be one of: owner, admin, analyst, viewer/);
    const noOrg = await cli('user', 'invite', '--org', 'nope', '--email', 'c@example.com', '--role', 'owner');
    assert.match(noOrg.stderr, /no organisation with slug "nope"/);
  });

  it('list, disable and reset-2fa name unknown users clearly', async () => {
    assert.deepEqual((await cli('user', 'list', '--json')).json(), [], 'an invitation is not yet a user');
    const unknown = await cli('user', 'disable', '--email', 'ghost@example.com');
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no console user with e-mail ghost@example\.com/);
    assert.equal((await cli('user', 'reset-2fa', '--email', 'ghost@example.com')).code, 1);
  });
});
