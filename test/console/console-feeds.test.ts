import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { useHarness } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
import { signedInAgent } from '../helpers/console.js';

// The Feeds page names where each feed came from by its kind and host only: the feeds are the
// instance's and every organisation's owners and admins read the page, while a source may be a
// path on the server or a mirror's URL whose query string holds its token. The operator's
// `cra-admin vuln feeds` still prints the sources whole.

const TOKEN = 'mirror-token-s3cret';
const KEV = {
  title: 'CISA Catalog of Known Exploited Vulnerabilities',
  catalogVersion: '2099.01.02',
  count: 1,
  vulnerabilities: [{ cveID: 'CVE-2099-0001', dateAdded: '2099-01-02', knownRansomwareCampaignUse: 'Unknown', vendorProject: 'x' }],
};

describe('console: the sources on the Feeds page', () => {
  const harness = useHarness();
  let dir: string;
  let mirror: Server;
  let kevUrl: string;
  let osvDir: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cra-feeds-page-'));
    osvDir = join(dir, 'private-mirror', 'osv');
    mkdirSync(osvDir, { recursive: true });
    writeFileSync(
      join(osvDir, 'GHSA-feed-0001.json'),
      JSON.stringify({
        schema_version: '1.6.0',
        id: 'GHSA-feed-0001',
        modified: '2099-01-01T00:00:00Z',
        affected: [{ package: { ecosystem: 'npm', name: 'left-pad' }, ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }] }] }],
      }),
    );
    mirror = createServer((_request, response) => {
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify(KEV));
    });
    await new Promise<void>((resolve) => mirror.listen(0, '127.0.0.1', resolve));
    kevUrl = `http://127.0.0.1:${(mirror.address() as AddressInfo).port}/feeds/cisa/kev.json?token=${TOKEN}`;
    const h = harness();
    await h.orgs.createOrg({ slug: 'feeds' });
    const env = { DATABASE_URL: h.config.databaseUrl, FEEDS_ALLOW_PRIVATE: 'true' };
    const imported = await runCli(['vuln', 'import', kevUrl, osvDir], env);
    assert.equal(imported.code, 0, imported.stderr);
  });
  after(async () => {
    await new Promise((resolve) => mirror.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it('shows each source as its kind and host, never a path or a query string', async () => {
    const h = harness();
    const admin = (await signedInAgent(h, 'feeds', 'admin@feeds.example', 'admin')).agent;
    const page = await admin.get('/console/o/feeds/feeds');
    assert.equal(page.statusCode, 200);
    const sources = [...page.body.matchAll(/<td class="source">([^<]*)<\/td>/g)].map((m) => m[1]);
    assert.deepEqual(sources, ['osv · local file', 'cisa-kev · 127.0.0.1', '—', '—', '—', '—']);
    for (const secret of [TOKEN, 'token=', '/feeds/cisa/kev.json', 'private-mirror', dir]) {
      assert.equal(page.body.includes(secret), false, `the page shows ${secret}`);
    }
  });

  it("leaves the operator's `cra-admin vuln feeds` whole", async () => {
    const listed = await runCli(['vuln', 'feeds', '--json'], { DATABASE_URL: harness().config.databaseUrl });
    assert.equal(listed.code, 0, listed.stderr);
    const feeds = JSON.parse(listed.stdout) as Array<{ kind: string; source: string | null }>;
    assert.equal(feeds.find((f) => f.kind === 'cisa-kev')?.source, kevUrl);
    assert.equal(feeds.find((f) => f.kind === 'osv')?.source, osvDir);
  });
});
