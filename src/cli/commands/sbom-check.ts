import { readFile } from 'node:fs/promises';
import { Command, InvalidArgumentError } from 'commander';
import { AppError } from '../../errors.js';
import {
  CONFORMANCE_PROFILES,
  type ConformanceProfileId,
  type ConformanceReport,
  DEFAULT_CONFORMANCE_PROFILE,
  isConformanceProfile,
  PROFILES,
} from '../../sbom/conformance/conformance.js';
import { createSbomReader } from '../../sbom/parse/sbom-reader.js';
import { type CliIo, offlineAction } from '../context.js';

// `cra-admin sbom check FILE`: the step a build pipeline runs before it pushes. The document goes
// through the reader an upload goes through (format detection, validation, the same parse
// threads), and nothing is stored: no database, no server. Exit 0 conforms, 1 does not, 2 the
// file cannot be read or is not an SBOM of a supported format.

const FINDINGS: Record<string, string> = {
  format_below_floor: "the format version is below the profile's floor",
  vulnerabilities_in_sbom: 'the SBOM carries vulnerability information, which the TR keeps out of an SBOM (publish it as CSAF or VEX)',
};

function profileOption(value: string): ConformanceProfileId {
  if (!isConformanceProfile(value)) throw new InvalidArgumentError(`expected one of ${CONFORMANCE_PROFILES.join(', ')}`);
  return value;
}

export function sbomCheckCommand(): Command {
  return new Command('check')
    .description('check an SBOM file against a conformance profile without storing it (exit 0 conforms, 1 does not, 2 unreadable)')
    .argument('<file>', 'the SBOM document')
    .option('--profile <profile>', `${CONFORMANCE_PROFILES.join(' or ')} (default ${DEFAULT_CONFORMANCE_PROFILE})`, profileOption)
    .action(
      offlineAction(async (io: CliIo, file: string, opts: { profile?: ConformanceProfileId }) => {
        const profile = opts.profile ?? DEFAULT_CONFORMANCE_PROFILE;
        try {
          const bytes = await readFile(file).catch((error: NodeJS.ErrnoException) => {
            throw new AppError('not_found', `cannot read ${file}: ${error.code ?? error.message}`);
          });
          const reader = createSbomReader();
          // Nothing is kept: the document is not compressed for storage.
          const summary = await reader.read(bytes, () => {}, { compress: false }).finally(() => reader.close());
          const report = summary.conformance.find((r) => r.profile === profile)!;
          const format = `${summary.detected.format === 'cyclonedx' ? 'CycloneDX' : 'SPDX'} ${summary.detected.specVersion}`;
          return { json: report, text: reportText(file, format, report), exitCode: report.conforms ? 0 : 1 };
        } catch (error) {
          if (!(error instanceof AppError)) throw error;
          const lines = [`cra-admin: ${file}: ${error.message}`, ...(error.details ?? []).map((d) => `  ${d.path}: ${d.message}`)];
          io.stderr.write(`${lines.join('\n')}\n`);
          return { json: { error: { code: error.code, message: error.message, details: error.details ?? [] } }, text: '', exitCode: 2 };
        }
      }),
    );
}

/** The report in words: each missing field with its count and examples ("name version: why"). */
export function reportText(file: string, format: string, report: ConformanceReport): string {
  const profile = PROFILES[report.profile];
  const { total, conforming } = report.components;
  const lines = [
    `${file}: ${report.conforms ? 'conforms to' : 'does not conform to'} ${profile.title} (${report.profile})`,
    `  ${format}, ${total} component${total === 1 ? '' : 's'}, ${conforming} with every required field`,
  ];
  for (const finding of report.findings) lines.push(`  finding ${finding}: ${FINDINGS[finding] ?? finding}`);
  for (const d of report.document) if (!d.ok && d.level === 'required') lines.push(`  missing ${d.field}`);
  for (const f of report.components.fields) {
    if (f.level !== 'required' || f.missing === 0) continue;
    lines.push(`  missing ${f.field} on ${f.missing} of ${total} components:`);
    for (const e of f.examples) lines.push(`    ${e.name || e.ref || '(no name)'} ${e.version || '(no version)'}: ${e.why}`);
  }
  const additional = [
    ...report.document.filter((d) => d.level === 'additional' && !d.ok).map((d) => d.field),
    ...report.components.fields.filter((f) => f.level === 'additional' && f.missing > 0).map((f) => `${f.field} on ${f.missing}`),
  ];
  if (additional.length > 0) lines.push(`  additional fields missing (counted, never deciding): ${additional.join(', ')}`);
  return lines.join('\n');
}
