import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { resolveComponentCpes } from '../../../../src/vulns/match/cpe/component-cpes.js';
import {
  type ConfigurationsResult,
  evaluateConfigurations,
  type NvdConfiguration,
  type RevisionComponent,
} from '../../../../src/vulns/match/cpe/configurations.js';
import type { Evidence } from '../../../../src/vulns/match/cpe/evidence.js';
import { FIRMWARE } from './vectors.js';

/** An NVD record kept under test/fixtures/firmware/nvd/mirror, by its id. */
export function nvdRecord(id: string): { id: string; vulnStatus: string; configurations?: NvdConfiguration[] } {
  const [, year, number] = id.split('-') as [string, string, string];
  const folder = join(FIRMWARE, 'nvd', 'mirror', `CVE-${year}`);
  const bucket = readdirSync(folder).find((name) => name === `CVE-${year}-${number.slice(0, -2)}xx`)!;
  return JSON.parse(readFileSync(join(folder, bucket, `${id}.json`), 'utf8'));
}

/** A component of a revision: its CPEs (from the SBOM unless said) and its SBOM version. */
export function component(ref: string, cpes: string | string[], version?: string, source: 'sbom' | 'mapping' = 'sbom'): RevisionComponent {
  const list = (Array.isArray(cpes) ? cpes : [cpes]).map((cpe) => ({ cpe, source }));
  return { ref, identities: resolveComponentCpes({ name: ref, version: version ?? null, cpes: list }).identities };
}

/** What a revision of these components (and this subject, the device) gets from the configurations. */
export function evaluate(
  configurations: readonly NvdConfiguration[],
  components: RevisionComponent[],
  subject?: string,
): ConfigurationsResult {
  const device = subject === undefined ? [] : component('subject', subject).identities;
  return evaluateConfigurations(configurations, { components, subject: device });
}

export function evidenceOf(result: ConfigurationsResult, ref: string): Evidence | undefined {
  return result.findings.find((finding) => finding.ref === ref)?.evidence;
}

/** The refs that got a finding, asserted or conditional (`ref?`). */
export function affected(result: ConfigurationsResult): string[] {
  return result.findings.map((f) => (f.evidence.conditional ? `${f.ref}?` : f.ref)).sort();
}
