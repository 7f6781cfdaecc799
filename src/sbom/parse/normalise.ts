import type { Json } from './json-checks.js';
import { graphOf, idList } from './spdx3-validator.js';

// A validated document → the product's release version (when the document names one) and the
// components it lists besides the product itself, handed one by one, in document order, to a
// sink that keeps only what it needs of each (read-sbom.ts: its text); no I/O. Collected in a
// list until the whole document was walked, the components of a 10,000-component document were
// still in the heap after the collection between documents (2–7 MB each time, until a full
// collection: --trace-gc in the server), and readings took longer (README, "SBOM rows").

export interface NormalisedComponent {
  name: string;
  version: string | null;
  purl: string | null;
  type: string | null;
  licenses: string[];
  /** CycloneDX bom-ref, SPDX 2 SPDXID or SPDX 3 spdxId. */
  ref: string | null;
}

/** Receives each component once, in document order; the object is not used again after the call. */
export type ComponentSink = (component: NormalisedComponent) => void;

/** A normaliser: hands the components to `emit`, returns the release version (or null). */
export type Normaliser = (doc: Json, emit: ComponentSink) => string | null;

/** A trimmed non-empty string, else null. (A document holding NUL was rejected before: document-limits.ts.) */
function str(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const text = value.trim();
  return text === '' ? null : text;
}
const name = (value: unknown): string => str(value) ?? String(value);
const NO_LICENSE = new Set(['NOASSERTION', 'NONE']);

function cycloneDxLicenses(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  const out: string[] = [];
  for (const choice of value as Json[]) {
    const text =
      str(choice?.expression) ?? str((choice?.license as Json | undefined)?.id) ?? str((choice?.license as Json | undefined)?.name);
    if (text) out.push(text);
  }
  return out;
}

/** CycloneDX: `components`, nested ones included (depth first); the release is metadata.component.version. */
export function normaliseCycloneDx(doc: Json, emit: ComponentSink): string | null {
  const walk = (list: unknown) => {
    if (!Array.isArray(list)) return;
    for (const c of list as Json[]) {
      emit({
        name: name(c.name),
        version: str(c.version),
        purl: str(c.purl),
        type: str(c.type),
        licenses: cycloneDxLicenses(c.licenses),
        ref: str(c['bom-ref']),
      });
      walk(c.components);
    }
  };
  walk(doc.components);
  const metadata = doc.metadata as Json | undefined;
  return str((metadata?.component as Json | undefined)?.version);
}

/**
 * The licence texts among `values`, each once, in the order first met. A Set, and a list passed
 * as one argument: an SPDX 3 package may be given hundreds of thousands of licences through its
 * relationships (a list spread into arguments overflows the stack; a list searched for each
 * text is quadratic).
 */
function spdxLicenses(values: readonly unknown[]): string[] {
  const out = new Set<string>();
  for (const v of values) {
    const text = str(v);
    if (text && !NO_LICENSE.has(text)) out.add(text);
  }
  return [...out];
}

/** SPDX 2: packages other than those the document describes (documentDescribes, DESCRIBES, DESCRIBED_BY). */
export function normaliseSpdx2(doc: Json, emit: ComponentSink): string | null {
  const described: string[] = [...((doc.documentDescribes as string[] | undefined) ?? [])];
  for (const r of (doc.relationships as Json[] | undefined) ?? []) {
    if (r.relationshipType === 'DESCRIBES' && r.spdxElementId === 'SPDXRef-DOCUMENT') described.push(String(r.relatedSpdxElement));
    if (r.relationshipType === 'DESCRIBED_BY' && r.relatedSpdxElement === 'SPDXRef-DOCUMENT') described.push(String(r.spdxElementId));
  }
  const describedSet = new Set(described);
  const packages = (doc.packages as Json[] | undefined) ?? [];
  const byId = new Map(packages.map((p) => [p.SPDXID as string, p]));
  const releaseVersion = described.map((id) => str(byId.get(id)?.versionInfo)).find((v) => v !== null) ?? null;
  for (const p of packages) {
    if (describedSet.has(p.SPDXID as string)) continue;
    emit({
      name: name(p.name),
      version: str(p.versionInfo),
      purl: str(((p.externalRefs as Json[] | undefined) ?? []).find((r) => r.referenceType === 'purl')?.referenceLocator),
      type: str(p.primaryPackagePurpose)?.toLowerCase() ?? null,
      licenses: spdxLicenses([p.licenseDeclared, p.licenseConcluded]),
      ref: p.SPDXID as string,
    });
  }
  return releaseVersion;
}

/** SPDX 3: software_Package elements other than the root elements of the SpdxDocument and its software_Sbom elements. */
export function normaliseSpdx3(doc: Json, emit: ComponentSink): string | null {
  const graph = graphOf(doc);
  const roots: string[] = [];
  for (const node of graph) {
    // Appended one by one: a list of any length (spreading it into push's arguments overflows the stack).
    if (node.type === 'SpdxDocument' || node.type === 'software_Sbom') for (const id of idList(node.rootElement) ?? []) roots.push(id);
  }
  const rootSet = new Set(roots);
  const byId = new Map<string, Json>();
  for (const node of graph) if (typeof node.spdxId === 'string') byId.set(node.spdxId, node);
  // Licences hang off packages through hasDeclaredLicense / hasConcludedLicense relationships.
  const licensesOf = new Map<string, unknown[]>();
  for (const node of graph) {
    if (node.relationshipType !== 'hasDeclaredLicense' && node.relationshipType !== 'hasConcludedLicense') continue;
    const from = String(node.from);
    // Each package's list grows in place: copying it at each relationship was quadratic.
    let list = licensesOf.get(from);
    if (list === undefined) {
      list = [];
      licensesOf.set(from, list);
    }
    for (const id of idList(node.to) ?? []) list.push(byId.get(id)?.simplelicensing_licenseExpression ?? byId.get(id)?.name);
  }
  for (const p of graph) {
    if (p.type !== 'software_Package' || rootSet.has(p.spdxId as string)) continue;
    emit({
      name: name(p.name),
      version: str(p.software_packageVersion),
      purl: str(p.software_packageUrl),
      type: str(p.software_primaryPurpose),
      licenses: spdxLicenses(licensesOf.get(p.spdxId as string) ?? []),
      ref: p.spdxId as string,
    });
  }
  const release = roots.map((id) => byId.get(id)).find((n) => n?.type === 'software_Package' && str(n.software_packageVersion));
  return release ? str(release.software_packageVersion) : null;
}
