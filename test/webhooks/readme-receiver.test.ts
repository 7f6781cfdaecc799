import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { buildHarness, type Harness, type Tenant, suiteTeardown } from '../helpers/app.js';
import { REPO_ROOT } from '../helpers/cli.js';
import { postIncident } from '../helpers/incidents.js';
import { freePort } from '../helpers/services.js';
import { webhookParts } from '../helpers/webhooks.js';

// The receiver example of docs/webhooks.md (its first `js` block), run as written (only its port
// changed) against real deliveries: it verifies them with standardwebhooks and processes each id once.
describe('the webhook receiver of docs/webhooks.md', () => {
  let h: Harness;
  let acme: Tenant;
  const teardown = suiteTeardown();

  before(async () => {
    h = await buildHarness(teardown);
    h.clock.current = new Date();
    acme = await h.tenant('acme', ['incidents:write'], { intakeMode: 'case' });
  });

  it('verifies a delivery, rejects a forged one, and processes a replay once', async () => {
    const doc = readFileSync(join(REPO_ROOT, 'docs/webhooks.md'), 'utf8');
    const code = /```js\n([\s\S]*?)```/.exec(doc)?.[1];
    assert.ok(code?.includes('.listen(9000)'), 'docs/webhooks.md has the receiver example');
    const port = await freePort();
    // Inside the repository, so `standardwebhooks` resolves from its node_modules.
    const file = join(REPO_ROOT, 'test', `.readme-receiver-${port}.mjs`);
    writeFileSync(file, code!.replace('.listen(9000)', `.listen(${port}, '127.0.0.1')`));
    teardown.after(async () => rmSync(file, { force: true }));
    const parts = webhookParts(h);
    const added = await parts.webhooks.addEndpoint({ org: 'acme', url: `http://127.0.0.1:${port}/cra` });
    const child = spawn(process.execPath, [file], {
      env: { PATH: process.env.PATH ?? '', CRA_WEBHOOK_SECRET: added.secret },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    teardown.after(async () => void child.kill('SIGKILL'));
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    for (
      let i = 0;
      i < 100 &&
      !(await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: '{}' }).then(
        () => true,
        () => false,
      ));
      i++
    ) {
      await new Promise((r) => setTimeout(r, 50));
    }
    const number = (await postIncident(h, acme.key, { description: 'Exploited RCE' })).json().incident_number as number;
    assert.equal(await parts.dispatcher.runOnce(), 1);
    const [delivery] = await parts.webhooks.listDeliveries({ org: 'acme' });
    assert.equal(delivery!.status, 'succeeded', output);
    assert.equal(delivery!.attempt_log[0]!.status_code, 204);
    await parts.webhooks.replay({ org: 'acme', delivery: delivery!.id });
    assert.equal(await parts.dispatcher.runOnce(), 1);
    assert.equal((await parts.webhooks.listDeliveries({ org: 'acme' }))[0]!.attempt_log[1]!.status_code, 204);
    const forged = await fetch(`http://127.0.0.1:${port}/`, {
      method: 'POST',
      headers: { 'webhook-id': 'msg_forged', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': 'v1,AAAA' },
      body: '{"type":"case.closed","timestamp":"x","data":{}}',
    });
    assert.equal(forged.status, 400);
    const lines = output.trim().split('\n');
    assert.equal(lines.length, 1, output);
    assert.match(lines[0]!, new RegExp(`^case\\.opened \\{"incident_number":${number},`));
  });
});
