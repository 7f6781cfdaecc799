/**
 * The ids of components each organisation stores, remembered by key (component-rows.ts) from
 * one upload to the next. A product's next revision lists nearly all the components of the one
 * before: remembered, they need no lookup. On SQLite the lookups of 10,000 known components
 * took 11–40 ms of the event loop per upload, more than anything else there.
 *
 * Sound because a stored component is never changed or deleted (it is addressed by its
 * content, and revisions reference it), and because only ids that are committed are
 * remembered: the caller remembers a document's ids once the lookups and the transactions that
 * stored its new components are done. A component another process stored is simply not
 * remembered yet, and is looked up. Per organisation: the same component in another
 * organisation is another row with another id.
 *
 * Bounded: at most `maxEntries` keys in all (~100 bytes each). Past it, the organisations used
 * least recently are forgotten first; an organisation that alone outgrows it starts over.
 */
export class KnownComponents {
  // Least recently used first: an organisation is moved to the end on each use.
  readonly #orgs = new Map<string, Map<string, number>>();
  #entries = 0;

  /**
   * @param maxEntries keys remembered in all
   * @param maxPerDocument documents with more components are neither looked up here nor
   *   remembered: 100,000 keys at once made the event loop's heap grow by ~15 MB per upload, and
   *   the reads beside such an upload waited for its garbage collection (bench, PostgreSQL: GET
   *   products p99 ~59 ms against ~41). Their own lookups cost them a few per cent.
   */
  constructor(
    readonly maxEntries: number,
    readonly maxPerDocument: number = maxEntries,
  ) {}

  /** Whether a document of `count` components is looked up here and remembered. */
  covers(count: number): boolean {
    return count <= this.maxPerDocument;
  }

  /** Keys remembered in all organisations. */
  get size(): number {
    return this.#entries;
  }

  /** Sets `ids[i]` for each of `keys[from..to)` remembered for the organisation; returns how many. */
  find(orgId: string, keys: readonly string[], ids: Float64Array, from = 0, to = keys.length): number {
    const known = this.#touch(orgId);
    if (!known) return 0;
    let found = 0;
    for (let i = from; i < to; i++) {
      const id = known.get(keys[i]!);
      if (id !== undefined) {
        ids[i] = id;
        found++;
      }
    }
    return found;
  }

  /**
   * Remembers the committed ids of `keys[from..to)` (ids[i] for keys[i]; 0 is not an id and is
   * skipped). A caller with many keys remembers them a slice at a time.
   */
  remember(orgId: string, keys: readonly string[], ids: Float64Array, from = 0, to = keys.length): void {
    let known = this.#touch(orgId);
    if (!known) {
      known = new Map();
      this.#orgs.set(orgId, known);
    }
    this.#add(known, keys, ids, from, to);
    // The least recently used organisations go first; this one is the most recent.
    for (const [other, theirs] of this.#orgs) {
      if (this.#entries <= this.maxEntries || other === orgId) break;
      this.#orgs.delete(other);
      this.#entries -= theirs.size;
    }
    // Alone over the bound: it starts over with this slice, or with nothing if even that is too many.
    if (this.#entries > this.maxEntries) {
      this.#entries -= known.size;
      known.clear();
      if (to - from <= this.maxEntries) this.#add(known, keys, ids, from, to);
    }
  }

  #add(known: Map<string, number>, keys: readonly string[], ids: Float64Array, from: number, to: number): void {
    for (let i = from; i < to; i++) {
      const id = ids[i]!;
      if (id === 0 || known.has(keys[i]!)) continue;
      known.set(ownCopy(keys[i]!), id);
      this.#entries++;
    }
  }

  #touch(orgId: string): Map<string, number> | undefined {
    const known = this.#orgs.get(orgId);
    if (known) {
      this.#orgs.delete(orgId);
      this.#orgs.set(orgId, known);
    }
    return known;
  }
}

/**
 * The key as a string of its own. A key split from a list of keys is, in V8, a slice that keeps
 * the whole list alive (~230 KB for 10,000 keys): remembered as it is, each of a revision's few
 * new keys would pin its list. Keys are base64url, so Latin-1 carries them exactly.
 */
function ownCopy(key: string): string {
  return Buffer.from(key, 'latin1').toString('latin1');
}
