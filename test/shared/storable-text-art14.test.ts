import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { AppError } from '../../src/errors.js';
import { buildHarness, suiteTeardown, type Harness, type Tenant } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
import { TEST_BACKEND } from '../helpers/db.js';
import { postIncident } from '../helpers/incidents.js';

// A NUL character or a lone surrogate in the Article 14 workflow's text (report drafts and
// filings, the corrective measure, organisation data, product markets, triage, advisories) and
// in webhook endpoints: the same 422 naming the field on both backends, never PostgreSQL's 500;
// through `cra-admin`, a clear error and exit 1.

async function appError(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  assert.fail('expected an AppError');
}

function assertNamed(error: AppError, paths: string[], field: string): void {
  assert.equal(error.code, 'validation_failed', error.message);
  assert.deepEqual(
    error.details?.map((d) => d.path),
    paths,
  );
  assert.match(error.message, new RegExp(`^${field} contains a (NUL character|lone UTF-16 surrogate)`));
}

describe('Article 14 and webhook text the databases cannot store', () => {
  let h: Harness;
  let acme: Tenant;
  let caseNumber: number;
  const teardown = suiteTeardown();
  const signal = async () => (await postIncident(h, acme.key, { description: 'report', sku: 'RTR-2' })).json().incident_number as number;

  before(async () => {
    h = await buildHarness(teardown, { WEBHOOK_ALLOW_PRIVATE: 'true' });
    acme = await h.tenant('acme', ['incidents:write']);
    await h.products.addProduct('acme', 'RTR-2', { name: 'Router', firmwareVersion: '1.0', markets: ['EU'] });
    caseNumber = await signal();
    await h.cases.openCase('acme', { signalNumber: caseNumber, notifiable: true, kind: 'vulnerability' });
  });

  it('report drafts: a text field, a list entry (422 naming the field; nothing saved)', async () => {
    const text = await appError(h.reports.saveDraft('acme', caseNumber, 'early_warning', { title: 'Over\u0000flow' }));
    assert.equal(text.code, 'validation_failed');
    assert.match(text.message, /title: contains a NUL character/);
    const list = await appError(h.reports.saveDraft('acme', caseNumber, 'early_warning', { affected_versions: ['1.0', '1.1\ud800'] }));
    assert.match(list.message, /affected_versions: contains a lone UTF-16 surrogate/);
    const report = await h.reports.getReport('acme', caseNumber, 'early_warning');
    assert.notEqual(report.fields.title, 'Over\u0000flow');
  });

  it('filing: the SRP reference and who filed; the corrective measure', async () => {
    assertNamed(
      await appError(h.reports.fileReport('acme', caseNumber, 'early_warning', { reference: 'SRP\u0000-1', filedBy: 'alice' })),
      ['/reference'],
      'reference',
    );
    assertNamed(
      await appError(h.reports.fileReport('acme', caseNumber, 'early_warning', { reference: 'SRP-1', filedBy: 'al\ud800ice' })),
      ['/filed_by'],
      'filed_by',
    );
    assertNamed(await appError(h.reports.recordFix('acme', caseNumber, h.clock.now(), 'patch\u0000')), ['/description'], 'description');
    assert.equal((await h.cases.getCase('acme', caseNumber)).fix_available_at, null);
  });

  it('organisation data and product markets', async () => {
    assertNamed(await appError(h.orgs.setDetails('acme', { legalName: 'Acme\u0000 GmbH' })), ['/legal_name'], 'legal_name');
    assertNamed(await appError(h.orgs.setDetails('acme', { postalAddress: 'Berlin \udc00' })), ['/address'], 'address');
    assertNamed(await appError(h.products.updateProduct('acme', 'RTR-2', { markets: ['DE\u0000'] })), ['/markets/0'], 'markets');
    assertNamed(await appError(h.products.addProduct('acme', 'RTR-3', { name: 'R', markets: ['\ud800'] })), ['/markets/0'], 'markets');
    assert.equal((await h.orgs.describeOrg('acme')).legal_name, null);
  });

  it('triage and cases: dismissal reason, a not-notifiable reason; a SKU with NUL names no product', async () => {
    const n = await signal();
    assertNamed(await appError(h.triage.dismissSignal('acme', n, 'spam\u0000')), ['/reason'], 'reason');
    assertNamed(
      await appError(h.cases.openCase('acme', { signalNumber: n, notifiable: false, notifiableReason: 'no\u0000' })),
      ['/reason'],
      'reason',
    );
    assert.equal((await appError(h.triage.attributeSignal('acme', n, 'RTR\u0000'))).code, 'product_not_found');
  });

  it('advisory publication URL and webhook endpoint URL and events', async () => {
    assertNamed(await appError(h.evidence.advisory('acme', caseNumber, { url: 'https://acme.example/a\u0000' })), ['/url'], 'url');
    assertNamed(await appError(h.webhooks.addEndpoint({ org: 'acme', url: 'http://127.0.0.1:9/\u0000' })), ['/url'], 'url');
    assertNamed(
      await appError(h.webhooks.addEndpoint({ org: 'acme', url: 'http://127.0.0.1:9/', events: 'case.opened\ud800' })),
      ['/events'],
      'events',
    );
    assert.deepEqual(await h.webhooks.listEndpoints('acme'), []);
  });

  it('cra-admin case report --from-file: a clear error naming the field, exit 1, nothing saved', async () => {
    const env = { DATABASE_URL: h.config.databaseUrl };
    for (const [value, why] of [
      ['Over\u0000flow', /title: contains a NUL character/],
      ['Over\ud800flow', /title: contains a lone UTF-16 surrogate/],
    ] as const) {
      const file = join(tmpdir(), `cra-draft-${process.pid}-${Math.random().toString(36).slice(2)}.json`);
      writeFileSync(file, JSON.stringify({ title: value }));
      const res = await runCli(
        ['case', 'report', '--org', 'acme', '--number', String(caseNumber), '--stage', 'early-warning', '--from-file', file],
        env,
      );
      assert.equal(res.code, 1, res.stdout + res.stderr);
      assert.match(res.stderr, why);
      assert.doesNotMatch(res.stderr, /internal|stack|at .*\.js/i);
    }
    assert.notEqual((await h.reports.getReport('acme', caseNumber, 'early_warning')).fields.title, 'Over\u0000flow');
  });

  it('PostgreSQL: a statement carrying such text is refused as 422 naming the column, whatever path sent it', {
    skip: TEST_BACKEND !== 'postgres' && 'PostgreSQL only: SQLite stores the text',
  }, async () => {
    const org = await h.orgs.requireOrg('acme');
    const update = await appError(
      h.database.transaction((trx) => trx.updateTable('organisations').set({ legal_name: 'x\u0000' }).where('id', '=', org.id).execute()),
    );
    assert.equal(update.code, 'validation_failed');
    assert.match(update.message, /^legal_name contains a NUL character/);
    const lookup = await appError(h.database.db.selectFrom('organisations').select('id').where('slug', '=', 'ac\u0000me').execute());
    assert.match(lookup.message, /^slug contains a NUL character/);
    // The database is still answering, and still available.
    assert.equal(h.database.availability.available, true);
    assert.equal((await h.orgs.describeOrg('acme')).slug, 'acme');
  });
});
