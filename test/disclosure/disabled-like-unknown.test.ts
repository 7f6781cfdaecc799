import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { disclosureRepo } from '../../src/disclosure/disclosure.repo.js';
import { orgsRepo } from '../../src/orgs/orgs.repo.js';
import { useHarness } from '../helpers/app.js';
import { Reporter } from './reporter.js';

// A disabled organisation's pages answer exactly as an unknown slug's (disclosure.md): the same
// page, and the same work before it. One more query for a disabled organisation made its 404
// about 20 µs slower, enough to tell which slugs exist. Every call into the repositories the
// pages use is counted, for each public address, for a disabled and for an unknown slug.

type Repo = Record<string, (...args: unknown[]) => unknown>;
const REPOS: Record<string, Repo> = { disclosureRepo: disclosureRepo as unknown as Repo, orgsRepo: orgsRepo as unknown as Repo };

describe('a disabled organisation and an unknown one', () => {
  const harness = useHarness();
  const calls: string[] = [];
  const originals: Array<() => void> = [];

  before(async () => {
    const h = harness();
    await h.orgs.createOrg({ slug: 'disabled' });
    // Enabled once, then disabled: its settings row is there, as it is for most disabled pages.
    await h.disclosure.configure('disabled', { enabled: true });
    await h.disclosure.configure('disabled', { enabled: false });
    await h.orgs.createOrg({ slug: 'open' });
    await h.disclosure.configure('open', { enabled: true });
    for (const [repoName, repo] of Object.entries(REPOS)) {
      for (const [name, fn] of Object.entries(repo)) {
        if (typeof fn !== 'function') continue;
        repo[name] = function (this: unknown, ...args: unknown[]) {
          calls.push(`${repoName}.${name}`);
          return fn.apply(this, args);
        };
        originals.push(() => {
          repo[name] = fn;
        });
      }
    }
  });
  after(() => {
    for (const restore of originals) restore();
  });

  const TOKEN = 'A'.repeat(43);
  const requests: Array<[string, (r: Reporter, slug: string) => Promise<{ statusCode: number; body: string }>]> = [
    ['the policy', (r, slug) => r.get(`/disclose/${slug}`)],
    ['the form', (r, slug) => r.get(`/disclose/${slug}/report`)],
    ['security.txt', (r, slug) => r.get(`/disclose/${slug}/security.txt`)],
    ['a report', (r, slug) => r.report(slug, { description: 'x' }, [], { open: false, csrf: 'forged' })],
    ['a follow-up link', (r, slug) => r.get(`/disclose/${slug}/follow/${TOKEN}`)],
  ];

  for (const [what, send] of requests) {
    it(`${what}: the same 404 after the same one repository call`, async () => {
      const r = new Reporter(harness().app);
      // The form token of a real form, so that a post is refused for the organisation, not the token.
      await r.get('/disclose/open/report');
      const seen: Record<string, { status: number; body: string; calls: string[] }> = {};
      for (const slug of ['disabled', 'nobody']) {
        calls.length = 0;
        const response = await send(r, slug);
        seen[slug] = { status: response.statusCode, body: response.body, calls: [...calls] };
      }
      assert.equal(seen.disabled!.status, 404);
      assert.equal(seen.disabled!.body, seen.nobody!.body);
      assert.deepEqual(seen.disabled!.calls, ['disclosureRepo.enabledOrg']);
      assert.deepEqual(seen.nobody!.calls, seen.disabled!.calls);
    });
  }

  it('a message through a follow-up link: the same 403 before any query (no form of theirs ever held a token)', async () => {
    const r = new Reporter(harness().app);
    await r.get('/disclose/open/report');
    const answers = [];
    for (const slug of ['disabled', 'nobody']) {
      calls.length = 0;
      const response = await r.post(`/disclose/${slug}/follow/${TOKEN}`, { message: 'hello' });
      answers.push({ status: response.statusCode, body: response.body, calls: [...calls] });
    }
    assert.equal(answers[0]!.status, 403);
    assert.deepEqual(answers[0], answers[1]);
    assert.deepEqual(answers[0]!.calls, []);
  });
});
