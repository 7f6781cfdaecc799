import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Real published SBOMs, kept unchanged in the repository (see its README for sources and licences). */
export const FIXTURE_DIR = fileURLToPath(new URL('../fixtures/sbom/', import.meta.url));

export interface Fixture {
  file: string;
  format: 'cyclonedx' | 'spdx';
  specVersion: string;
  components: number;
  /** null: the document names no version for the product. */
  release: string | null;
}

// Expected values checked by hand against each file (jq/python): CycloneDX counts include
// nested components; SPDX counts exclude the packages the document describes.
export const FIXTURES: Fixture[] = [
  { file: 'cyclonedx/dropwizard-1.3.15-bom.json', format: 'cyclonedx', specVersion: '1.2', components: 167, release: '1.3.15' },
  { file: 'cyclonedx/juice-shop-bom.1.2.json', format: 'cyclonedx', specVersion: '1.2', components: 1115, release: '14.1.1' },
  { file: 'cyclonedx/juice-shop-bom.1.3.json', format: 'cyclonedx', specVersion: '1.3', components: 1115, release: '14.1.1' },
  { file: 'cyclonedx/juice-shop-bom.1.4.json', format: 'cyclonedx', specVersion: '1.4', components: 1115, release: '14.1.1' },
  { file: 'cyclonedx/keycloak-10.0.2-bom.json', format: 'cyclonedx', specVersion: '1.2', components: 903, release: '10.0.2' },
  { file: 'cyclonedx/laravel-7.12.0-bom.1.4.json', format: 'cyclonedx', specVersion: '1.4', components: 62, release: 'dev-master' },
  { file: 'spdx/example11-spdx2.3-sbom.spdx.json', format: 'spdx', specVersion: '2.3', components: 3, release: '0.1.0' },
  { file: 'spdx/example11-spdx3.0-sbom.spdx3.json', format: 'spdx', specVersion: '3.0.1', components: 3, release: '0.1.0' },
  { file: 'spdx/example7-spdx2.2-example7-bin.spdx.json', format: 'spdx', specVersion: '2.2', components: 0, release: null },
  { file: 'spdx/example8-spdx2.3-examplemaven-0.0.1.spdx.json', format: 'spdx', specVersion: '2.3', components: 5, release: '0.0.1' },
  { file: 'spdx/example9-spdx2.2-appbomination.spdx.json', format: 'spdx', specVersion: '2.2', components: 6, release: '1.0' },
  { file: 'spdx/example9-spdx3.0-appbomination.spdx3.json', format: 'spdx', specVersion: '3.0.1', components: 6, release: '1.0' },
];

export function fixturePath(file: string): string {
  return `${FIXTURE_DIR}${file}`;
}

export function fixtureBytes(file: string): Buffer {
  return readFileSync(fixturePath(file));
}

/** A fixture parsed, for building broken variants (a fresh copy each call). */
export function fixtureJson(file: string): any {
  return JSON.parse(fixtureBytes(file).toString('utf8'));
}

/** A small valid CycloneDX 1.6 document; each call is a new document unless `serial` is given. */
export function cycloneDx16(components = 3, options: { serial?: string; version?: string } = {}): any {
  return {
    bomFormat: 'CycloneDX',
    specVersion: '1.6',
    serialNumber: `urn:uuid:${options.serial ?? randomUUID()}`,
    version: 1,
    metadata: { component: { type: 'firmware', name: 'device', version: options.version ?? '2.0.0', 'bom-ref': 'device' } },
    components: Array.from({ length: components }, (_, i) => ({
      type: 'library',
      'bom-ref': `pkg:npm/lib-${i}@1.0.${i}`,
      name: `lib-${i}`,
      version: `1.0.${i}`,
      purl: `pkg:npm/lib-${i}@1.0.${i}`,
      licenses: [{ license: { id: 'MIT' } }],
    })),
  };
}

/**
 * cycloneDx16 with its components named in order from a to z (`a-lib-0` …), as SBOM tools list
 * them by name: their keys' prefixes grow through the document (read-sbom.ts, SLICE_OVERLAP_ONE_IN).
 */
export function cycloneDx16ByName(components: number, options: { serial?: string; version?: string } = {}): any {
  const doc = cycloneDx16(components, options);
  doc.components.forEach((c: { name: string; purl: string; 'bom-ref': string; version: string }, i: number) => {
    const name = `${String.fromCharCode(97 + Math.floor((i * 26) / components))}-lib-${i}`;
    c.name = name;
    c.purl = `pkg:npm/${name}@${c.version}`;
    c['bom-ref'] = c.purl;
  });
  return doc;
}

export const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** A product SKU made from a fixture's file name. */
export const skuOf = (file: string) =>
  file
    .replace(/^.*\//, '')
    .replace(/[^A-Za-z0-9.-]/g, '-')
    .slice(0, 90);
// example7 names no version: with a firmware version the release is that, without one `unversioned`.
export const FIRMWARE = '7.7.7';
