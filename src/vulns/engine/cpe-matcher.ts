import { setImmediate as turn } from 'node:timers/promises';
import type { Database } from '../../db/index.js';
import { decodeIds } from '../../sbom/store/id-list.js';
import { type ComponentIdentity, type ResolvedCpes, resolveComponentCpes } from '../match/cpe/component-cpes.js';
import {
  type CompiledConfigurations,
  compileConfigurations,
  type NvdConfiguration,
  evaluateConfigurations,
} from '../match/cpe/configurations.js';
import type { Evidence } from '../match/cpe/evidence.js';
import { productKey } from '../match/cpe/record-products.js';
import { normaliseProductName } from '../match/cpe/vendor-table.js';
import { type CpeComponentRow, type CpeReading, cpeMatchingRepo } from '../store/cpe-matching.repo.js';
import { COMPONENT_SLICE, POSTGRES_CHUNK } from './component-matcher.js';

// Matching by CPE (firmware.md): each component's CPEs read once into what it is matched under
// (`component_cpe_reads`, `component_cpe_keys`), and a product's latest revisions evaluated
// against the NVD records naming those vendor:product pairs, each revision as a whole: the other
// terms of a record's AND are decided by the revision's other components and its subject.

const CHUNK = 500;

/** Statuses under which a component is matched: `version_unparsable` still matches exact versions as text. */
const MATCHED = new Set(['matchable', 'version_unparsable']);

/** Compiled configurations kept; past it the cache starts again (a whole NVD is ~300,000 records). */
const CACHE_MAX = 50_000;

/** A CPE finding of a product: which releases' revisions make it, and its best evidence. */
export interface CpeMatch {
  componentId: number;
  vulnKey: string;
  releases: Set<string>;
  evidence: Evidence;
}

const splitCpes = (text: string | null): string[] =>
  text === null
    ? []
    : text
        .split('\n')
        .map((c) => c.trim())
        .filter((c) => c !== '');

/** A component's CPEs: the SBOM's, else the organisation's confirmed mapping of its name; null when neither. */
export function resolveRow(
  row: Pick<CpeComponentRow, 'name' | 'version' | 'cpes'>,
  mappings: ReadonlyMap<string, string[]> | undefined,
): ResolvedCpes | null {
  const sbom = splitCpes(row.cpes);
  const cpes =
    sbom.length > 0
      ? sbom.map((cpe) => ({ cpe, source: 'sbom' as const }))
      : (mappings?.get(normaliseProductName(row.name)) ?? []).map((cpe) => ({ cpe, source: 'mapping' as const }));
  if (cpes.length === 0) return null;
  return resolveComponentCpes({ name: row.name, version: row.version, cpes });
}

/** What reading a component gives: 'no_cpe', 'matchable' or the reason it is not, and its keys. */
export function readingOf(row: CpeComponentRow, mappings: ReadonlyMap<string, string[]> | undefined): CpeReading {
  const resolved = resolveRow(row, mappings);
  if (resolved === null) return { id: row.id, status: 'no_cpe', keys: [] };
  const status = resolved.notMatchable ?? 'matchable';
  const keys = MATCHED.has(status) ? [...new Set(resolved.identities.flatMap((i) => productKey(i.wfn) ?? []))] : [];
  return { id: row.id, status, keys };
}

/** Is `a` the better evidence: asserted before conditional, then bounded, then exact, confirmed, inferred. */
function betterEvidence(a: Evidence, b: Evidence): boolean {
  const rank = { exact: 0, confirmed: 1, inferred: 2 } as const;
  const key = (e: Evidence) => [e.conditional ? 1 : 0, e.unbounded ? 1 : 0, rank[e.confidence]];
  const [ka, kb] = [key(a), key(b)];
  for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i]) return ka[i]! < kb[i]!;
  return false;
}

/** A component's identities and the pairs they are under. */
interface ResolvedComponent {
  identities: ComponentIdentity[];
  keys: string[];
}

/** Entries a session's map holds; past it the map starts again (what a refresh of a whole organisation reads is larger). */
const SESSION_MAX = 250_000;

/**
 * What matchRevisions read, kept over one refresh of many products (findings-engine.ts
 * refreshProducts): each pair's live records, and each component's verdict: its identities when
 * it is matchable under a pair that a record names (or when a record names every product), else
 * null. Both hold for the whole refresh: the records do not change during it.
 */
export interface MatchSession {
  recordsOf: Map<string, ReadonlyArray<{ cve: string; digest: string }>>;
  verdicts: Map<number, ResolvedComponent | null>;
  /**
   * Empties both maps when `wanted` more entries would take either past SESSION_MAX (before they
   * are read from): a verdict's records are read from recordsOf, so they go together.
   */
  makeRoom(wanted: number): void;
}

export function createMatchSession(): MatchSession {
  const session: MatchSession = {
    recordsOf: new Map(),
    verdicts: new Map(),
    makeRoom(wanted) {
      if (Math.max(session.verdicts.size, session.recordsOf.size) + wanted <= SESSION_MAX) return;
      session.verdicts.clear();
      session.recordsOf.clear();
    },
  };
  return session;
}

export function createCpeMatcher(database: Database) {
  const { db, dialect } = database;
  const size = dialect === 'postgres' ? POSTGRES_CHUNK : CHUNK;
  const compiled = new Map<string, { digest: string; configurations: CompiledConfigurations }>();

  async function inChunks<T>(items: readonly T[], run: (chunk: T[]) => Promise<void>, chunk = size): Promise<void> {
    for (let i = 0; i < items.length; i += chunk) {
      await run(items.slice(i, i + chunk));
      await turn();
    }
  }

  /** Reads the CPEs of the components among `ids` not read yet. */
  async function readComponents(ids: ArrayLike<number>): Promise<void> {
    const all = [...new Set(Array.from(ids))];
    await inChunks(
      all,
      async (slice) => {
        const rows: CpeComponentRow[] = [];
        await inChunks(slice, async (chunk) => {
          rows.push(...(await cpeMatchingRepo.unreadAmong(db, dialect, chunk)));
        });
        if (rows.length === 0) return;
        const mappings = await cpeMatchingRepo.mappingsOf(
          db,
          rows.filter((r) => r.cpes === null).map((r) => r.org),
        );
        const readings = rows.map((row) => readingOf(row, mappings.get(row.org)));
        await cpeMatchingRepo.recordReadings(database, readings);
      },
      COMPONENT_SLICE,
    );
  }

  /** The compiled configurations of these records, from the cache or read now. */
  async function configurationsOf(records: ReadonlyMap<string, string>): Promise<Map<string, CompiledConfigurations>> {
    const out = new Map<string, CompiledConfigurations>();
    const missing: string[] = [];
    for (const [cve, digest] of records) {
      const held = compiled.get(cve);
      if (held !== undefined && held.digest === digest) out.set(cve, held.configurations);
      else missing.push(cve);
    }
    await inChunks(missing, async (chunk) => {
      for (const row of await cpeMatchingRepo.configurationsOf(db, dialect, chunk)) {
        const configurations = compileConfigurations(JSON.parse(row.configurations) as NvdConfiguration[]);
        if (compiled.size >= CACHE_MAX) compiled.clear();
        compiled.set(row.cve, { digest: row.digest, configurations });
        out.set(row.cve, configurations);
      }
    });
    return out;
  }

  /**
   * Reaches the session's verdict on each of `ids`: reads their pairs (component_cpe_keys), the
   * live records naming those pairs not asked for yet, and the CPEs of the components under a
   * recorded pair (of all when a record names every product); every other component is null.
   */
  async function judge(ids: readonly number[], session: MatchSession): Promise<void> {
    const keysOf = new Map<number, string[]>(ids.map((id) => [id, []]));
    await inChunks(ids, async (chunk) => {
      for (const row of await cpeMatchingRepo.keysAmong(db, dialect, chunk)) keysOf.get(row.component_id)?.push(row.product_key);
    });
    const keys = new Set<string>(['*']);
    for (const owned of keysOf.values()) for (const key of owned) keys.add(key);
    const unasked = [...keys].filter((key) => !session.recordsOf.has(key));
    if (unasked.length > 0) {
      const found = new Map<string, Map<string, string>>(unasked.map((key) => [key, new Map()]));
      await inChunks(unasked, async (chunk) => {
        for (const r of await cpeMatchingRepo.recordsNaming(db, dialect, chunk)) found.get(r.product_key)?.set(r.cve, r.digest);
      });
      for (const [key, records] of found)
        session.recordsOf.set(
          key,
          [...records].map(([cve, digest]) => ({ cve, digest })),
        );
    }
    const everyProduct = session.recordsOf.get('*')!.length > 0;
    const concerned: number[] = [];
    for (const [id, owned] of keysOf) {
      if (everyProduct || owned.some((key) => session.recordsOf.get(key)!.length > 0)) concerned.push(id);
      else session.verdicts.set(id, null);
    }
    if (concerned.length === 0) return;
    const rows: CpeComponentRow[] = [];
    await inChunks(concerned, async (chunk) => {
      rows.push(...(await cpeMatchingRepo.matchableAmong(db, dialect, chunk)));
    });
    const mappings = await cpeMatchingRepo.mappingsOf(
      db,
      rows.filter((r) => r.cpes === null).map((r) => r.org),
    );
    for (const id of concerned) session.verdicts.set(id, null);
    for (const row of rows) {
      const resolved = resolveRow(row, mappings.get(row.org));
      if (resolved === null || resolved.identities.length === 0) continue;
      const own = [...new Set(resolved.identities.flatMap((i) => productKey(i.wfn) ?? []))];
      session.verdicts.set(row.id, { identities: resolved.identities, keys: own });
    }
  }

  /**
   * The CPE findings of these revisions (a product's latest, one per release): each revision's
   * components under a vendor:product that a live record names (component_cpe_keys, read when
   * the component was) evaluated against those records, with the revision's other such
   * components and its subject deciding the other terms. A component under no recorded pair is
   * neither read nor parsed again: to every record it would answer "not this product".
   * `session` keeps what was read (each component's verdict, each pair's records)
   * across the products of one refresh: a component is in ten products' revisions, a pair in
   * many, and the records do not change during it.
   */
  async function matchRevisions(
    revisions: ReadonlyArray<{ sbom_id: string; release_version: string; component_ids: Uint8Array }>,
    session: MatchSession = createMatchSession(),
  ): Promise<Map<string, CpeMatch>> {
    const out = new Map<string, CpeMatch>();
    const members = revisions.map((r) => ({ ...r, ids: decodeIds(r.component_ids) }));
    session.makeRoom(members.reduce((n, m) => n + m.ids.length, 0));
    const pending = new Set<number>();
    for (const member of members) for (const id of member.ids) if (!session.verdicts.has(id)) pending.add(id);
    if (pending.size > 0) await judge([...pending], session);
    const keys = new Set<string>(['*']);
    for (const member of members)
      for (const id of member.ids) {
        const component = session.verdicts.get(id);
        if (component) for (const key of component.keys) keys.add(key);
      }
    const recordKeys = new Map<string, Set<string>>();
    const digests = new Map<string, string>();
    for (const key of keys)
      for (const { cve, digest } of session.recordsOf.get(key) ?? []) {
        recordKeys.set(cve, (recordKeys.get(cve) ?? new Set()).add(key));
        digests.set(cve, digest);
      }
    if (digests.size === 0) return out;
    const configurations = await configurationsOf(digests);
    const subjects = await cpeMatchingRepo.subjectsOf(
      db,
      members.map((m) => m.sbom_id),
    );
    for (const member of members) {
      const byKey = new Map<string, Array<{ ref: string; identities: ComponentIdentity[] }>>();
      const present: Array<{ ref: string; identities: ComponentIdentity[] }> = [];
      for (const id of member.ids) {
        const component = session.verdicts.get(id);
        if (!component) continue;
        const entry = { ref: String(id), identities: component.identities };
        present.push(entry);
        for (const key of component.keys) {
          const sharing = byKey.get(key);
          if (sharing === undefined) byKey.set(key, [entry]);
          else sharing.push(entry);
        }
      }
      if (present.length === 0) continue;
      const subjectCpes = splitCpes(subjects.get(member.sbom_id) ?? null);
      const subject =
        subjectCpes.length === 0
          ? []
          : resolveComponentCpes({ name: '', cpes: subjectCpes.map((cpe) => ({ cpe, source: 'sbom' as const })) }).identities;
      let evaluated = 0;
      for (const [cve, named] of recordKeys) {
        const compiledRecord = configurations.get(cve);
        if (compiledRecord === undefined) continue;
        // Narrowed to the components sharing a pair with the record: to the others every entry says "not this product".
        const concernedHere = named.has('*') ? present : [...new Set([...named].flatMap((key) => byKey.get(key) ?? []))];
        if (concernedHere.length === 0) continue;
        if (++evaluated % 1_000 === 0) await turn();
        for (const finding of evaluateConfigurations(compiledRecord, { components: concernedHere, subject }).findings) {
          const componentId = Number(finding.ref);
          const key = `${componentId}\u0000${cve}`;
          const held = out.get(key);
          if (held === undefined)
            out.set(key, { componentId, vulnKey: cve, releases: new Set([member.release_version]), evidence: finding.evidence });
          else {
            held.releases.add(member.release_version);
            if (betterEvidence(finding.evidence, held.evidence)) held.evidence = finding.evidence;
          }
        }
      }
    }
    return out;
  }

  return {
    readComponents,

    /**
     * Reads the CPEs of every component not read yet (those stored while no NVD record was held),
     * in id order, a slice at a time: what an NVD import runs before it refreshes the products.
     */
    async readUnread(): Promise<void> {
      for (let after = 0; ; ) {
        const ids = await cpeMatchingRepo.unreadAfter(db, after, COMPONENT_SLICE);
        if (ids.length === 0) return;
        await readComponents(ids);
        after = ids[ids.length - 1]!;
      }
    },

    /** Whether any NVD record is held. */
    anyRecords: (): Promise<boolean> => cpeMatchingRepo.anyRecord(db),

    matchRevisions,

    /** A new session for matchRevisions: one per refresh of many products. */
    session: createMatchSession,
  };
}

export type CpeMatcher = ReturnType<typeof createCpeMatcher>;
