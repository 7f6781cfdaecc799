import { AppError } from '../../errors.js';
import { CYCLONEDX_VERSIONS, type CycloneDxVersion } from './cyclonedx-validator.js';

export type DetectedFormat =
  | { kind: 'cyclonedx'; format: 'cyclonedx'; specVersion: CycloneDxVersion }
  | { kind: 'spdx2'; format: 'spdx'; specVersion: '2.2' | '2.3' }
  | { kind: 'spdx3'; format: 'spdx'; specVersion: string };

const SUPPORTED = 'CycloneDX JSON 1.2–1.7, SPDX 2.2 or 2.3 JSON, SPDX 3.0 JSON-LD';

function unsupported(what: string): AppError {
  return new AppError('unsupported_sbom_format', `${what}; supported: ${SUPPORTED}`);
}

function invalid(path: string, message: string): AppError {
  return new AppError('invalid_sbom', 'the SBOM does not conform to its specification', [{ path, message }]);
}

/** The SPDX 3 version named by a JSON-LD @context (a URL such as https://spdx.org/rdf/3.0.1/spdx-context.jsonld). */
function spdx3Version(context: unknown): string | null | undefined {
  const urls = (Array.isArray(context) ? context : [context]).filter((c): c is string => typeof c === 'string');
  for (const url of urls) {
    const match = /^https?:\/\/spdx\.org\/rdf\/(\d+\.\d+(?:\.\d+)?)\//.exec(url);
    if (match) return match[1]!.startsWith('3.0') ? match[1]! : null;
  }
  return undefined;
}

/**
 * Which specification and version a parsed document claims, from its marker fields:
 * `bomFormat`/`specVersion` (CycloneDX), `spdxVersion` (SPDX 2), an spdx.org `@context` (SPDX 3).
 * Unknown formats and versions are unsupported; a recognised marker of the wrong type is invalid.
 */
export function detectFormat(document: unknown): DetectedFormat {
  if (document === null || typeof document !== 'object' || Array.isArray(document)) {
    throw unsupported('the document is not a JSON object');
  }
  const doc = document as Record<string, unknown>;
  if ('bomFormat' in doc) {
    if (doc.bomFormat !== 'CycloneDX') throw unsupported(`bomFormat ${JSON.stringify(doc.bomFormat)} is not CycloneDX`);
    if (doc.specVersion === undefined) throw invalid('/specVersion', "must have required property 'specVersion'");
    if (typeof doc.specVersion !== 'string') throw invalid('/specVersion', 'must be string');
    if (!(CYCLONEDX_VERSIONS as readonly string[]).includes(doc.specVersion)) {
      throw unsupported(`CycloneDX specVersion ${JSON.stringify(doc.specVersion)} is not supported`);
    }
    return { kind: 'cyclonedx', format: 'cyclonedx', specVersion: doc.specVersion as CycloneDxVersion };
  }
  if ('spdxVersion' in doc) {
    if (typeof doc.spdxVersion !== 'string') throw invalid('/spdxVersion', 'must be string');
    if (doc.spdxVersion !== 'SPDX-2.2' && doc.spdxVersion !== 'SPDX-2.3') {
      throw unsupported(`spdxVersion ${JSON.stringify(doc.spdxVersion)} is not supported`);
    }
    return { kind: 'spdx2', format: 'spdx', specVersion: doc.spdxVersion === 'SPDX-2.2' ? '2.2' : '2.3' };
  }
  if ('@context' in doc) {
    const version = spdx3Version(doc['@context']);
    if (version === undefined) throw unsupported('the JSON-LD @context is not an SPDX context');
    if (version === null) throw unsupported('only SPDX 3.0 JSON-LD is supported');
    return { kind: 'spdx3', format: 'spdx', specVersion: version };
  }
  throw unsupported('the document is neither CycloneDX (bomFormat) nor SPDX (spdxVersion or an SPDX 3 @context)');
}
