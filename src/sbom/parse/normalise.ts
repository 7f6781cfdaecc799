import type { Json } from './json-checks.js';
import { type BuildVerdict, cycloneDxVerdicts, spdx3Verdicts } from './build-verdicts.js';
import { cycloneDxCpes, spdx2Cpes, spdx3Cpes } from './cpes.js';
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
  /** The CPEs the document gives the component (cpes.ts), newline-separated in its order; null (or absent) for none. */
  cpes?: string | null;
}

/** Receives each component once, in document order; the object is not used again after the call. */
export type ComponentSink = (component: NormalisedComponent) => void;

/**
 * What a document says of the product it describes: its release version and its CPEs
 * (newline-separated), each null when none, and the build's own verdicts on CVEs it carries.
 */
export interface DocumentSubject {
  releaseVersion: string | null;
  subjectCpes: string | null;
  buildVerdicts: BuildVerdict[];
}

/** A normaliser: hands the components to `emit`, returns what the document says of its subject. */
export type Normaliser = (doc: Json, emit: ComponentSink) => DocumentSubject;

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

/**
 * CycloneDX: `components`, nested ones included (depth first); the subject is metadata.component
 * (its version the release).
 */
export function normaliseCycloneDx(doc: Json, emit: ComponentSink): DocumentSubject {
  const walk = (list: unknown, path: string) => {
    if (!Array.isArray(list)) return;
    for (let i = 0; i < list.length; i++) {
      const c = list[i] as Json;
      emit({
        name: name(c.name),
        version: str(c.version),
        purl: str(c.purl),
        type: str(c.type),
        licenses: cycloneDxLicenses(c.licenses),
        ref: str(c['bom-ref']),
        cpes: c.cpe === undefined ? null : cycloneDxCpes(c.cpe, () => `${path}/${i}/cpe`),
      });
      if (c.components !== undefined) walk(c.components, `${path}/${i}/components`);
    }
  };
  walk(doc.components, '/components');
  const subject = (doc.metadata as Json | undefined)?.component as Json | undefined;
  return {
    releaseVersion: str(subject?.version),
    subjectCpes: subject?.cpe === undefined ? null : cycloneDxCpes(subject.cpe, () => '/metadata/component/cpe'),
    buildVerdicts: cycloneDxVerdicts(doc),
  };
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
export function normaliseSpdx2(doc: Json, emit: ComponentSink): DocumentSubject {
  const described: string[] = [...((doc.documentDescribes as string[] | undefined) ?? [])];
  for (const r of (doc.relationships as Json[] | undefined) ?? []) {
    if (r.relationshipType === 'DESCRIBES' && r.spdxElementId === 'SPDXRef-DOCUMENT') described.push(String(r.relatedSpdxElement));
    if (r.relationshipType === 'DESCRIBED_BY' && r.relatedSpdxElement === 'SPDXRef-DOCUMENT') described.push(String(r.spdxElementId));
  }
  const describedSet = new Set(described);
  const packages = (doc.packages as Json[] | undefined) ?? [];
  const byId = new Map(packages.map((p) => [p.SPDXID as string, p]));
  const releaseVersion = described.map((id) => str(byId.get(id)?.versionInfo)).find((v) => v !== null) ?? null;
  let subjectCpes: string | null = null;
  for (let i = 0; i < packages.length; i++) {
    const p = packages[i]!;
    const refs = p.externalRefs as Json[] | undefined;
    const cpes = !Array.isArray(refs) ? null : spdx2Cpes(refs, () => `/packages/${i}/externalRefs`);
    if (describedSet.has(p.SPDXID as string)) {
      subjectCpes ??= cpes;
      continue;
    }
    emit({
      name: name(p.name),
      version: str(p.versionInfo),
      purl: str((refs ?? []).find((r) => r.referenceType === 'purl')?.referenceLocator),
      type: str(p.primaryPackagePurpose)?.toLowerCase() ?? null,
      licenses: spdxLicenses([p.licenseDeclared, p.licenseConcluded]),
      ref: p.SPDXID as string,
      cpes,
    });
  }
  return { releaseVersion, subjectCpes, buildVerdicts: [] };
}

/** SPDX 3: software_Package elements other than the root elements of the SpdxDocument and its software_Sbom elements. */
export function normaliseSpdx3(doc: Json, emit: ComponentSink): DocumentSubject {
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
  // Where an element's identifiers are, for an error (graphOf leaves out what is not an object).
  const at = (node: Json) => () => `/@graph/${(doc['@graph'] as unknown[]).indexOf(node)}/externalIdentifier`;
  for (const p of graph) {
    if (p.type !== 'software_Package' || rootSet.has(p.spdxId as string)) continue;
    emit({
      name: name(p.name),
      version: str(p.software_packageVersion),
      purl: str(p.software_packageUrl),
      type: str(p.software_primaryPurpose),
      licenses: spdxLicenses(licensesOf.get(p.spdxId as string) ?? []),
      ref: p.spdxId as string,
      cpes: p.externalIdentifier === undefined ? null : spdx3Cpes(p.externalIdentifier, at(p)),
    });
  }
  const rootNodes = roots.map((id) => byId.get(id));
  const release = rootNodes.find((n) => n?.type === 'software_Package' && str(n.software_packageVersion));
  let subjectCpes: string | null = null;
  for (const n of rootNodes) {
    if (subjectCpes !== null || n?.externalIdentifier === undefined) continue;
    subjectCpes = spdx3Cpes(n.externalIdentifier, at(n));
  }
  return {
    releaseVersion: release ? str(release.software_packageVersion) : null,
    subjectCpes,
    buildVerdicts: spdx3Verdicts(graph, byId),
  };
}
