import { fromVex } from './vocabulary.js';
import type { AnalysisState } from '../vulns.schemas.js';

// VEX in: the statements of a CycloneDX VEX, CSAF `csaf_vex` or OpenVEX document, each as the
// analysis it sets, the vulnerability it names (any id or alias) and the products it is about
// (an identifier `pkg:generic/{org}/{sku}@{release}`, or a SKU).

export interface ImportedStatement {
  /** Every id the statement gives the vulnerability (the first is its name). */
  ids: string[];
  /** Product identifiers or SKUs as written. */
  products: string[];
  state: AnalysisState;
  justification: string | null;
  responses: string[];
  detail: string | null;
}

export class VexDocumentError extends Error {}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v : null);

const CDX_STATES = new Set(['in_triage', 'exploitable', 'resolved', 'resolved_with_pedigree', 'false_positive', 'not_affected']);

export function vexFormatOf(doc: unknown): 'cyclonedx' | 'csaf' | 'openvex' | null {
  if (!isObject(doc)) return null;
  if (doc.bomFormat === 'CycloneDX') return 'cyclonedx';
  if (isObject(doc.document) && typeof doc.document.csaf_version === 'string') return 'csaf';
  if (typeof doc['@context'] === 'string' && doc['@context'].startsWith('https://openvex.dev/ns')) return 'openvex';
  return null;
}

function cyclonedx(doc: Record<string, unknown>): ImportedStatement[] {
  const metadata = isObject(doc.metadata) ? doc.metadata : {};
  const main = isObject(metadata.component) ? metadata.component : {};
  const refs = new Map<string, string>();
  const addRef = (c: unknown) => {
    if (isObject(c) && typeof c['bom-ref'] === 'string') refs.set(c['bom-ref'], text(c.purl) ?? text(c.name) ?? c['bom-ref']);
  };
  addRef(main);
  for (const c of Array.isArray(doc.components) ? doc.components : []) addRef(c);
  const mainId = text(main.purl) ?? text(main.name);
  return (Array.isArray(doc.vulnerabilities) ? doc.vulnerabilities : []).filter(isObject).flatMap((v) => {
    const analysis = isObject(v.analysis) ? v.analysis : null;
    const state = analysis && typeof analysis.state === 'string' && CDX_STATES.has(analysis.state) ? analysis.state : null;
    if (!state || typeof v.id !== 'string') return [];
    const affects = (Array.isArray(v.affects) ? v.affects : [])
      .filter(isObject)
      .map((a) => (typeof a.ref === 'string' ? (refs.get(a.ref) ?? a.ref) : null));
    const products = [...new Set([...affects.filter((p): p is string => p !== null), ...(affects.length === 0 && mainId ? [mainId] : [])])];
    return [
      {
        ids: [
          v.id,
          ...(Array.isArray(v.references) ? v.references : [])
            .filter(isObject)
            .map((r) => r.id)
            .filter((id): id is string => typeof id === 'string'),
        ],
        products,
        state: (state === 'resolved_with_pedigree' ? 'resolved' : state) as AnalysisState,
        justification: text(analysis!.justification),
        responses: strings(analysis!.response),
        detail: text(analysis!.detail),
      },
    ];
  });
}

function openvex(doc: Record<string, unknown>): ImportedStatement[] {
  return (Array.isArray(doc.statements) ? doc.statements : []).filter(isObject).flatMap((s) => {
    const v = isObject(s.vulnerability) ? s.vulnerability : {};
    const name = text(v.name) ?? text(v['@id']);
    const mapped = typeof s.status === 'string' ? fromVex(s.status, text(s.justification)) : null;
    if (!name || !mapped) return [];
    const products = (Array.isArray(s.products) ? s.products : [])
      .map((p) => (typeof p === 'string' ? p : isObject(p) ? text(p['@id']) : null))
      .filter((p): p is string => p !== null);
    return [
      {
        ids: [name, ...strings(v.aliases)],
        products,
        ...mapped,
        responses: [],
        detail: text(s.impact_statement) ?? text(s.action_statement) ?? text(s.status_notes),
      },
    ];
  });
}

function csaf(doc: Record<string, unknown>): ImportedStatement[] {
  // product_id → its purl (product_identification_helper) or its name, from every branch of the tree.
  const names = new Map<string, string>();
  const walk = (node: unknown) => {
    if (!isObject(node)) return;
    const product = isObject(node.product) ? node.product : null;
    if (product && typeof product.product_id === 'string') {
      const helper = isObject(product.product_identification_helper) ? product.product_identification_helper : {};
      names.set(product.product_id, text(helper.purl) ?? text(product.name) ?? product.product_id);
    }
    for (const child of Array.isArray(node.branches) ? node.branches : []) walk(child);
  };
  const tree = isObject(doc.product_tree) ? doc.product_tree : {};
  for (const b of Array.isArray(tree.branches) ? tree.branches : []) walk(b);
  for (const p of Array.isArray(tree.full_product_names) ? tree.full_product_names : []) walk({ product: p });
  return (Array.isArray(doc.vulnerabilities) ? doc.vulnerabilities : []).filter(isObject).flatMap((v) => {
    const ids = [text(v.cve), ...(Array.isArray(v.ids) ? v.ids : []).filter(isObject).map((i) => text(i.text))].filter(
      (i): i is string => i !== null,
    );
    if (ids.length === 0) return [];
    const status = isObject(v.product_status) ? v.product_status : {};
    const flags = (Array.isArray(v.flags) ? v.flags : []).filter(isObject);
    const threats = (Array.isArray(v.threats) ? v.threats : []).filter(isObject);
    const remediations = (Array.isArray(v.remediations) ? v.remediations : []).filter(isObject);
    return (['known_not_affected', 'known_affected', 'fixed', 'under_investigation'] as const).flatMap((group) => {
      const productIds = strings(status[group]);
      if (productIds.length === 0) return [];
      return productIds.map((id) => {
        const flag = flags.find((f) => strings(f.product_ids).includes(id));
        const mapped = fromVex(group, text(flag?.label))!;
        const note =
          group === 'known_not_affected'
            ? threats.find((t) => strings(t.product_ids).includes(id))
            : remediations.find((r) => strings(r.product_ids).includes(id));
        return { ids, products: [names.get(id) ?? id], ...mapped, responses: [], detail: text(note?.details) };
      });
    });
  });
}

/** The statements of a VEX document, or a VexDocumentError when it is none of the three formats. */
export function vexStatements(doc: unknown): { format: 'cyclonedx' | 'csaf' | 'openvex'; statements: ImportedStatement[] } {
  const format = vexFormatOf(doc);
  if (!format) throw new VexDocumentError('not a CycloneDX, CSAF or OpenVEX document');
  const d = doc as Record<string, unknown>;
  return { format, statements: format === 'cyclonedx' ? cyclonedx(d) : format === 'csaf' ? csaf(d) : openvex(d) };
}
