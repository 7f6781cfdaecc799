import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { AppError } from '../../../src/errors.js';
import { readSbomBytes } from '../../../src/sbom/parse/read-sbom.js';
import { FIXTURES, fixtureBytes, fixturePath } from '../sbom-fixtures.js';

// Real documents through the upload's reader: the published SBOMs of the suite (all written
// before TR-03183-2 v2, so none conforms), and sbomqs's BSI TR-03183-2 v2.1 test data, whose file
// names are sbomqs's verdict on one field each ("valid…", "missing…", "invalid…"). Where our
// verdict differs from sbomqs's, `differs` says why (docs/sbom-conformance.md, "Compared with sbomqs").

const TR = 'bsi-tr-03183-2-v2.1';
const read = (file: string) => readSbomBytes(readFileSync(fixturePath(file)));
const report = (file: string, profile = TR) => read(file).conformance.find((r) => r.profile === profile)!;

describe('the published SBOMs of the suite', () => {
  for (const f of FIXTURES) {
    it(`${f.file}: below the floor or missing TR fields, never conforming`, () => {
      const r = report(f.file);
      assert.equal(r.conforms, false);
      const below = f.format === 'spdx' ? f.specVersion.startsWith('2.') : f.specVersion !== '1.6';
      assert.equal(r.findings[0] === 'format_below_floor', below);
      assert.equal(r.missing_required[0] === 'document.format', below);
      if (f.format === 'spdx' && below) assert.deepEqual(r.components.fields, []);
      // The subject is counted: one more than the stored components for CycloneDX and SPDX 2
      // (the described package), the SPDX 3 described packages likewise.
      assert.ok(r.components.total >= f.components, `${r.components.total} ≥ ${f.components}`);
    });
  }

  it('the NTIA profile checks SPDX 2 where the TR does not', () => {
    const r = report('spdx/example11-spdx2.3-sbom.spdx.json', 'ntia-minimum');
    assert.ok(r.components.fields.length > 0);
    assert.equal(r.components.total, 4);
  });

  it('Juice Shop 1.4 (cyclonedx-npm): every component misses the creator, with examples', () => {
    const r = report('cyclonedx/juice-shop-bom.1.4.json');
    const creator = r.components.fields.find((f) => f.field === 'component.creator')!;
    assert.equal(creator.missing, r.components.total);
    assert.deepEqual(creator.examples[0], {
      ref: 'juice-shop@14.1.1',
      name: 'juice-shop',
      version: '14.1.1',
      why: 'no manufacturer',
    });
    assert.equal(creator.examples.length, 5);
  });
});

interface Case {
  file: string;
  /** The field the file tests, or '*' for the whole document. */
  field: string;
  /** sbomqs's verdict on it, from the file's name. */
  sbomqs: 'present' | 'missing' | 'conforms' | 'finding' | 'no finding';
  ours: 'present' | 'missing' | 'conforms' | 'finding' | 'no finding' | 'refused';
  differs?: string;
}

const CASES: Case[] = [
  {
    file: 'validFullyCompliantBsiV21.cdx16.json',
    field: '*',
    sbomqs: 'conforms',
    ours: 'missing',
    differs: 'bsi:component:* values "false" are not the taxonomy values; acme-utils names its supplier, not its manufacturer',
  },
  { file: 'withVulnerabilities.cdx16.json', field: 'vulnerabilities_in_sbom', sbomqs: 'finding', ours: 'finding' },
  { file: 'noVulnerabilities.cdx16.json', field: 'vulnerabilities_in_sbom', sbomqs: 'no finding', ours: 'no finding' },
  {
    file: 'validComponentHashSHA256.cdx16.json',
    field: 'component.hash_sha512',
    sbomqs: 'present',
    ours: 'missing',
    differs: 'the TR asks for SHA-512; SHA-256 alone is "only SHA-256"',
  },
  { file: 'invalidComponentHashMD5.cdx16.json', field: 'component.hash_sha512', sbomqs: 'missing', ours: 'missing' },
  { file: 'validComponentBsiFilename.cdx16.json', field: 'component.filename', sbomqs: 'present', ours: 'present' },
  { file: 'missingComponentBsiFilename.cdx16.json', field: 'component.filename', sbomqs: 'missing', ours: 'missing' },
  {
    file: 'validComponentBsiArchive.cdx16.json',
    field: 'component.archive',
    sbomqs: 'present',
    ours: 'missing',
    differs: '"true" is not one of the taxonomy values "archive" / "no archive"',
  },
  { file: 'validComponentManufacturerURL.cdx16.json', field: 'component.creator', sbomqs: 'present', ours: 'present' },
  { file: 'missingComponentManufacturerEmailAndURL.cdx16.json', field: 'component.creator', sbomqs: 'missing', ours: 'missing' },
  {
    file: 'validComponentSupplierEmail.cdx16.json',
    field: 'component.creator',
    sbomqs: 'present',
    ours: 'missing',
    differs: 'the supplier is not the creator: the TR maps the creator to the manufacturer',
  },
  { file: 'validComponentLicenseConcluded.cdx16.json', field: 'component.distribution_licences', sbomqs: 'present', ours: 'present' },
  {
    file: 'validComponentLicenseDeclared.cdx16.json',
    field: 'component.distribution_licences',
    sbomqs: 'present',
    ours: 'missing',
    differs: 'a declared licence is the original licence; the distribution licence is the concluded one',
  },
  {
    file: 'validComponentDependencies.cdx16.json',
    field: 'component.dependencies',
    sbomqs: 'present',
    ours: 'missing',
    differs: 'no composition states the dependencies’ completeness',
  },
  { file: 'missingDependencyInfo.cdx16.json', field: 'component.dependencies', sbomqs: 'missing', ours: 'missing' },
  {
    file: 'validMetadataManufacturerURL.cdx16.json',
    field: 'document.creator',
    sbomqs: 'present',
    ours: 'missing',
    differs: 'it uses metadata.manufacture, the field CycloneDX 1.6 deprecated; the TR maps metadata.manufacturer',
  },
  {
    file: 'validMetadataAuthorEmail.cdx16.json',
    field: 'document.creator',
    sbomqs: 'present',
    ours: 'missing',
    differs: 'the authors are not the creator: the TR maps the creator to the manufacturer',
  },
  {
    file: 'validComponentLicenseExp.cdx16.json',
    field: 'component.distribution_licences',
    sbomqs: 'present',
    ours: 'refused',
    differs: 'its serialNumber is not a urn:uuid, so it is not valid CycloneDX 1.6 (422 invalid_sbom, sbom check exit 2)',
  },
  {
    file: 'v2.1.0-complete-all-fields.spdx3.json',
    field: '*',
    sbomqs: 'conforms',
    ours: 'refused',
    differs: 'its SpdxDocument names no rootElement and elements lack spdxId: not valid SPDX 3.0.1',
  },
];

function ourVerdict(file: string, field: string): Case['ours'] {
  let r: ReturnType<typeof report>;
  try {
    r = report(`tr-03183-sbomqs/${file}`);
  } catch (error) {
    if (error instanceof AppError && error.code === 'invalid_sbom') return 'refused';
    throw error;
  }
  if (field === '*') return r.conforms ? 'conforms' : 'missing';
  if (field === 'vulnerabilities_in_sbom') return r.findings.includes(field) ? 'finding' : 'no finding';
  if (field.startsWith('document.')) return r.document.find((d) => d.field === field)!.ok ? 'present' : 'missing';
  return r.components.fields.find((f) => f.field === field)!.missing === 0 ? 'present' : 'missing';
}

describe('sbomqs’s BSI TR-03183-2 v2.1 test data (an independent checker)', () => {
  for (const c of CASES) {
    it(`${c.file} ${c.field}: sbomqs ${c.sbomqs}, ours ${c.ours}`, () => {
      assert.equal(ourVerdict(c.file, c.field), c.ours);
      assert.equal(c.differs !== undefined, c.ours !== c.sbomqs, 'every difference is explained, and only differences');
    });
  }

  it('the whole document sbomqs calls compliant misses exactly the fields explained', () => {
    const r = report('tr-03183-sbomqs/validFullyCompliantBsiV21.cdx16.json');
    assert.deepEqual(r.missing_required, ['component.creator', 'component.executable', 'component.archive', 'component.structured']);
    const why = (id: string) => r.components.fields.find((f) => f.field === id)!.examples.map((e) => `${e.name}: ${e.why}`);
    assert.deepEqual(why('component.creator'), ['acme-utils: no manufacturer']);
    assert.equal(why('component.executable')[0], 'acme-app: bsi:component:executable is "true", not "executable" or "non-executable"');
  });

  it('the fixtures are sbomqs’s files unchanged', () => {
    assert.ok(fixtureBytes('tr-03183-sbomqs/validFullyCompliantBsiV21.cdx16.json').length > 10_000);
  });
});
