import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../src/errors.js';
import type { AnalyseInput } from '../../src/vulns/services/analysis.service.js';
import { ANALYSIS_DETAIL_MAX } from '../../src/vulns/vulns.schemas.js';
import { buildHarness, type Harness } from '../helpers/app.js';
import { cliOf, GIN, importRecords, productWith, RECORDS } from './helpers.js';

// The analysis service names the field each broken rule concerns (AppError details), so each
// door says it in its own words: cra-admin names its options, byte for byte as it always did;
// the console marks its form field (test/console/console-vulnerabilities.test.ts).

/** A product GW-1 of acme holding gin, with gin's record imported. */
async function ginOnAProduct(h: Harness): Promise<void> {
  await importRecords(h, RECORDS.gin);
  await productWith(h, [GIN]);
}

/** The error `analyse` refuses the input with. */
async function refusal(h: Harness, input: Partial<AnalyseInput>): Promise<AppError> {
  const error = await h.vulns.analyse({ org: 'acme', sku: 'GW-1', vuln: RECORDS.gin, state: 'resolved', actor: 'test', ...input }).then(
    () => null,
    (e: unknown) => e,
  );
  assert.ok(error instanceof AppError, `refused: ${JSON.stringify(input)}`);
  return error;
}

describe('analysis errors name their field', () => {
  it('each rule the service checks is a validation error on the field it concerns', async (t) => {
    const h = await buildHarness(t);
    await ginOnAProduct(h);
    const cases: Array<[Partial<AnalyseInput>, string]> = [
      [{ state: 'maybe' }, 'state'],
      [{ state: 'not_affected', justification: 'luck' }, 'justification'],
      [{ state: 'exploitable', justification: 'code_not_present' }, 'justification'],
      [{ responses: ['pray'] }, 'responses'],
      [{ detail: 'a NUL \u0000 here' }, 'detail'],
      [{ detail: 'x'.repeat(ANALYSIS_DETAIL_MAX + 1) }, 'detail'],
      [{ sku: undefined }, 'sku'],
      [{ sku: 'GW-1', allProducts: true }, 'sku'],
      [{ until: new Date('2027-01-01T00:00:00Z') }, 'until'],
    ];
    for (const [input, field] of cases) {
      const error = await refusal(h, input);
      assert.equal(error.code, 'validation_failed', JSON.stringify(input).slice(0, 80));
      assert.deepEqual(error.details, [{ path: field, message: error.message }], JSON.stringify(input).slice(0, 80));
    }
    assert.equal((await refusal(h, { detail: 'x'.repeat(ANALYSIS_DETAIL_MAX + 1) })).message, 'detail may be at most 10,000 characters');
    const longest = await h.vulns.analyse({
      org: 'acme',
      sku: 'GW-1',
      vuln: RECORDS.gin,
      state: 'resolved',
      detail: 'x'.repeat(ANALYSIS_DETAIL_MAX),
      actor: 'test',
    });
    assert.deepEqual(longest.products, ['GW-1'], 'a detail of the longest length is kept');
  });

  it('a product the organisation lacks, or one without the finding, is the sku field’s error', async (t) => {
    const h = await buildHarness(t);
    await ginOnAProduct(h);
    await h.products.addProduct('acme', 'CAM-1', { name: 'Camera' });
    const unknown = await refusal(h, { sku: 'NOPE' });
    assert.equal(unknown.code, 'product_not_found');
    assert.deepEqual(unknown.details, [{ path: 'sku', message: 'no product with SKU "NOPE"' }]);
    const without = await refusal(h, { sku: 'CAM-1' });
    assert.equal(without.code, 'not_found');
    assert.deepEqual(without.details, [{ path: 'sku', message: 'CAM-1 has no finding of CVE-2020-36567' }]);
  });

  it('cra-admin says the rules that span two options in its own words, byte for byte', async (t) => {
    const h = await buildHarness(t);
    await ginOnAProduct(h);
    const cli = cliOf(h);
    const analyse = (...args: string[]) => cli('finding', 'analyse', '--org', 'acme', '--vuln', RECORDS.gin, ...args);
    const cases: Array<[string[], string]> = [
      [['--state', 'resolved'], 'give either --sku or --all-products'],
      [['--sku', 'GW-1', '--all-products', '--state', 'resolved'], 'give either --sku or --all-products'],
      [
        ['--sku', 'GW-1', '--state', 'exploitable', '--justification', 'code_not_present'],
        'a justification says why a product is not_affected: give it with --state not_affected',
      ],
      [
        ['--sku', 'GW-1', '--state', 'resolved', '--until', '2027-01-01T00:00:00Z'],
        '--until bounds a rule for later findings: give it with --future',
      ],
      [
        ['--sku', 'GW-1', '--state', 'resolved', '--detail', 'x'.repeat(ANALYSIS_DETAIL_MAX + 1)],
        'detail may be at most 10,000 characters',
      ],
      [['--sku', 'NOPE', '--state', 'resolved'], 'no product with SKU "NOPE"'],
    ];
    for (const [args, message] of cases) {
      const refused = await analyse(...args);
      assert.deepEqual([refused.code, refused.stdout, refused.stderr], [1, '', `cra-admin: ${message}\n`], args.join(' ').slice(0, 80));
    }
  });
});
