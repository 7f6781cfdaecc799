import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { createFeedSchedule } from '../../src/clocks/feed-schedule.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/index.js';
import { useHarness } from '../helpers/app.js';

// VULN_FEEDS: the server fetches the feeds every VULN_FEEDS_EVERY, one instance per period.

const record = (id: string) =>
  JSON.stringify({
    schema_version: '1.6.0',
    id,
    modified: '2026-01-01T00:00:00Z',
    affected: [
      { package: { ecosystem: 'npm', name: 'left-pad' }, ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '1.3.1' }] }] },
    ],
  });

describe('the scheduled feed fetch', () => {
  const harness = useHarness({ FEEDS_ALLOW_PRIVATE: 'true' });
  let server: Server;
  let url: string;
  let requests = 0;
  before(async () => {
    server = createServer((_request, response) => {
      requests++;
      response.writeHead(200, { 'content-type': 'application/json' }).end(record(`SCHED-${requests}`));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}/feed.json`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('reads VULN_FEEDS and VULN_FEEDS_EVERY, refusing what is not a URL or a duration', () => {
    const config = loadConfig({ VULN_FEEDS: `${url}, https://osv.example/all.zip`, VULN_FEEDS_EVERY: '30m' });
    assert.deepEqual(config.feeds.urls, [url, 'https://osv.example/all.zip']);
    assert.equal(config.feeds.everyMs, 30 * 60_000);
    assert.equal(loadConfig({}).feeds.everyMs, 6 * 3_600_000);
    assert.deepEqual(loadConfig({}).feeds.urls, []);
    assert.throws(() => loadConfig({ VULN_FEEDS: 'ftp://x' }), /VULN_FEEDS must use http or https/);
    assert.throws(() => loadConfig({ VULN_FEEDS_EVERY: '10s' }), /VULN_FEEDS_EVERY must be a duration of at least 1m/);
  });

  it('fetches once per period whatever the number of instances ticking at once', async () => {
    const h = harness();
    const other = openDatabase(h.config.databaseUrl);
    try {
      const everyMs = 6 * 3_600_000;
      const instances = [h.database, other].map((database) =>
        createFeedSchedule({ database, urls: [url], everyMs, importFeeds: (urls) => h.vulns.importFeeds(urls), clock: h.clock.now }),
      );
      const ran = await Promise.all([...instances, ...instances].map((i) => i.runOnce()));
      assert.equal(ran.filter(Boolean).length, 1, 'one tick of one instance imported');
      assert.equal(requests, 1);
      assert.equal((await h.vulns.feeds()).find((f) => f.kind === 'osv')?.records, 1);
      h.clock.advance(everyMs);
      assert.equal((await Promise.all(instances.map((i) => i.runOnce()))).filter(Boolean).length, 1, 'the next period, once');
      assert.equal(requests, 2);
    } finally {
      await other.close();
    }
  });

  it('goes on to the next feed when one fails, and logs why', async () => {
    const h = harness();
    const warnings: string[] = [];
    const schedule = createFeedSchedule({
      database: h.database,
      urls: ['http://127.0.0.1:1/unreachable.json', url],
      everyMs: 3_600_000,
      importFeeds: (urls) => h.vulns.importFeeds(urls),
      clock: () => new Date('2030-01-01T00:00:00Z'),
      log: { warn: (obj, msg) => warnings.push(`${msg} ${JSON.stringify((obj as { feed?: string }).feed)}`) },
    });
    const before = requests;
    assert.equal(await schedule.runOnce(), true);
    assert.equal(requests, before + 1, 'the second feed was fetched');
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /vulnerability feed could not be imported "http:\/\/127\.0\.0\.1:1\/unreachable\.json"/);
  });
});
