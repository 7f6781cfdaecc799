import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TEST_CONSOLE_SECRET, useHarness } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
import { signedInAgent } from '../helpers/console.js';
import { Reporter } from './reporter.js';

// The reporter's credit line ("how you want to be credited", usually their name) is part of
// their identity: sealed at rest under the same key, shown only behind "Show the reporter" to
// those who may read the identity (analysts and above), never to viewers.

const CREDIT = 'R. Researcher of Quietlab';

describe("the reporter's credit line", () => {
  const harness = useHarness();

  it('is sealed at rest, hidden from viewers, and shown with the identity', async () => {
    const h = harness();
    await h.orgs.createOrg({ slug: 'acme' });
    await h.disclosure.configure('acme', { enabled: true });
    const analyst = (await signedInAgent(h, 'acme', 'analyst@acme.example', 'analyst')).agent;
    const viewer = (await signedInAgent(h, 'acme', 'viewer@acme.example', 'viewer')).agent;
    const sent = await new Reporter(h.app).report('acme', { description: 'A key in the firmware.', reporter_name: 'Ada', credit: CREDIT });
    assert.equal(sent.statusCode, 200);

    const [row] = await h.database.db.selectFrom('disclosure_reports').selectAll().execute();
    assert.match(row!.sealed_credit!, /^v1\./);
    assert.equal(JSON.stringify(row).includes('Quietlab'), false, 'nothing of it in the clear');

    const seen = await viewer.get('/console/o/acme/signals/1/conversation');
    assert.equal(seen.statusCode, 200);
    assert.equal(seen.body.includes('Quietlab'), false, 'a viewer does not read it');
    assert.equal((await viewer.post('/console/o/acme/signals/1/conversation/reporter', {})).statusCode, 404);

    const panel = await analyst.get('/console/o/acme/signals/1/conversation');
    assert.equal(panel.body.includes('Quietlab'), false, 'behind "Show the reporter", as the name is');
    const shown = await analyst.post('/console/o/acme/signals/1/conversation/reporter', {});
    assert.equal(shown.statusCode, 200);
    assert.match(shown.body, /<dl class="facts" id="reporter-identity">[\s\S]*<dt>Credit as<\/dt><dd>R\. Researcher of Quietlab<\/dd>/);

    const cli = await runCli(['signal', 'show', '--org', 'acme', '1', '--reporter'], {
      DATABASE_URL: h.config.databaseUrl,
      CONSOLE_SECRET: TEST_CONSOLE_SECRET,
    });
    assert.equal(cli.code, 0, cli.stderr);
    assert.match(cli.stdout, /reporter: Ada\ncontact: none given\ncredit: R\. Researcher of Quietlab/);
  });
});
