import { KEY_LENGTH } from './component-rows.js';

/**
 * The ids of components each organisation stores, remembered by key (component-rows.ts) from
 * one upload to the next. A product's next revision lists nearly all the components of the one
 * before: remembered, they need no lookup. On SQLite the lookups of 10,000 known components
 * took 11–40 ms of the event loop per upload, those of 100,000 some 350–400 ms.
 *
 * Sound because a stored component is never changed or deleted (it is addressed by its
 * content, and revisions reference it), and because only ids that are committed are
 * remembered: the caller remembers a document's ids once the lookups and the transactions that
 * stored its new components are done. A component another process stored is simply not
 * remembered yet, and is looked up. Per organisation: the same component in another
 * organisation is another row with another id.
 *
 * Keys are taken and kept as bytes (the reading's key column: KEY_LENGTH ASCII bytes every
 * `stride`), in one open-addressing table per organisation made of two typed arrays. So
 * remembering 100,000 keys builds no string and no object, and leaves nothing for the event
 * loop's garbage collector (a Map of strings grew its heap by ~15 MB per such upload, and reads
 * beside the upload waited for the collection).
 *
 * Bounded: at most `maxEntries` keys in all, in tables of 64–128 bytes per key. Past it, the
 * organisations used least recently are forgotten first; an organisation that alone outgrows it
 * starts over.
 */
export class KnownComponents {
  // Least recently used first: an organisation is moved to the end on each use.
  readonly #orgs = new Map<string, KeyTable>();
  #entries = 0;

  /** @param maxEntries keys remembered in all */
  constructor(readonly maxEntries: number) {}

  /** Keys remembered in all organisations. */
  get size(): number {
    return this.#entries;
  }

  /**
   * Sets `ids[i]` for each key i in [from, to) of `keys` (the i-th at byte i × stride) that is
   * remembered for the organisation; returns how many.
   */
  find(orgId: string, keys: Uint8Array, stride: number, ids: Float64Array, from: number, to: number): number {
    const table = this.#touch(orgId);
    if (!table) return 0;
    let found = 0;
    for (let i = from; i < to; i++) {
      const id = table.get(keys, i * stride);
      if (id !== 0) {
        ids[i] = id;
        found++;
      }
    }
    return found;
  }

  /**
   * Remembers the committed ids of the keys at `positions` (ids[i] for the i-th key; 0 is not an
   * id and is skipped). A caller with many keys remembers them a slice at a time.
   */
  remember(orgId: string, keys: Uint8Array, stride: number, ids: Float64Array, positions: readonly number[]): void {
    let table = this.#touch(orgId);
    if (!table) {
      table = new KeyTable();
      this.#orgs.set(orgId, table);
    }
    this.#add(table, keys, stride, ids, positions);
    // The least recently used organisations go first; this one is the most recent.
    for (const [other, theirs] of this.#orgs) {
      if (this.#entries <= this.maxEntries || other === orgId) break;
      this.#orgs.delete(other);
      this.#entries -= theirs.size;
    }
    // Alone over the bound: it starts over with this slice, or with nothing if even that is too many.
    if (this.#entries > this.maxEntries) {
      this.#entries -= table.size;
      table = new KeyTable();
      this.#orgs.set(orgId, table);
      if (positions.length <= this.maxEntries) this.#add(table, keys, stride, ids, positions);
    }
  }

  #add(table: KeyTable, keys: Uint8Array, stride: number, ids: Float64Array, positions: readonly number[]): void {
    const before = table.size;
    table.reserve(before + positions.length);
    for (const i of positions) {
      const id = ids[i]!;
      if (id !== 0) table.set(keys, i * stride, id);
    }
    this.#entries += table.size - before;
  }

  #touch(orgId: string): KeyTable | undefined {
    const table = this.#orgs.get(orgId);
    if (table) {
      this.#orgs.delete(orgId);
      this.#orgs.set(orgId, table);
    }
    return table;
  }
}

/**
 * Keys of KEY_LENGTH bytes to ids (positive; 0 marks an empty slot), by linear probing in a
 * table at most half full. A slot is 32 bytes, the key then its id, so a probe reads one cache
 * line (with keys and ids apart, a lookup in a table of 100,000 took two misses, ~250 ns). Keys
 * are base64url of a SHA-256 digest, so their first bytes are as good as random: the hash is
 * FNV-1a over eight of them.
 */
export class KeyTable {
  #bytes: Uint8Array;
  #ids: Float64Array; // the id of slot s at index s * ID_STEP + ID_AT
  #mask: number;
  #size = 0;

  constructor(capacity = 1024) {
    const memory = new ArrayBuffer(capacity * SLOT_BYTES);
    this.#bytes = new Uint8Array(memory);
    this.#ids = new Float64Array(memory);
    this.#mask = capacity - 1;
  }

  get size(): number {
    return this.#size;
  }

  /** Slots in the table (a power of two). */
  get capacity(): number {
    return this.#mask + 1;
  }

  /** The id of the key at `at` of `source`, or 0. */
  get(source: Uint8Array, at: number): number {
    for (let slot = slotOf(source, at) & this.#mask; ; slot = (slot + 1) & this.#mask) {
      const id = this.#ids[slot * ID_STEP + ID_AT]!;
      if (id === 0 || this.#holds(slot, source, at)) return id;
    }
  }

  /** Remembers the key at `at` of `source` with `id` (> 0); a key already there keeps its id. */
  set(source: Uint8Array, at: number, id: number): void {
    if (2 * (this.#size + 1) > this.capacity) this.reserve(this.#size + 1);
    for (let slot = slotOf(source, at) & this.#mask; ; slot = (slot + 1) & this.#mask) {
      if (this.#ids[slot * ID_STEP + ID_AT] === 0) {
        this.#bytes.set(source.subarray(at, at + KEY_LENGTH), slot * SLOT_BYTES);
        this.#ids[slot * ID_STEP + ID_AT] = id;
        this.#size++;
        return;
      }
      if (this.#holds(slot, source, at)) return;
    }
  }

  /** Grows the table (once, by powers of two) so that `entries` keys fit at most half full. */
  reserve(entries: number): void {
    let capacity = this.capacity;
    while (2 * entries > capacity) capacity *= 2;
    if (capacity === this.capacity) return;
    const bytes = this.#bytes;
    const ids = this.#ids;
    const memory = new ArrayBuffer(capacity * SLOT_BYTES);
    this.#bytes = new Uint8Array(memory);
    this.#ids = new Float64Array(memory);
    this.#mask = capacity - 1;
    this.#size = 0;
    for (let slot = 0; slot * SLOT_BYTES < bytes.length; slot++) {
      const id = ids[slot * ID_STEP + ID_AT]!;
      if (id !== 0) this.set(bytes, slot * SLOT_BYTES, id);
    }
  }

  #holds(slot: number, source: Uint8Array, at: number): boolean {
    const bytes = this.#bytes;
    const base = slot * SLOT_BYTES;
    for (let b = 0; b < KEY_LENGTH; b++) if (bytes[base + b] !== source[at + b]) return false;
    return true;
  }
}

const SLOT_BYTES = 32;
const ID_STEP = SLOT_BYTES / 8;
const ID_AT = ID_STEP - 1; // bytes 24–31, after the key's 22

function slotOf(source: Uint8Array, at: number): number {
  let hash = 0x811c9dc5;
  for (let b = 0; b < 8; b++) hash = Math.imul(hash ^ source[at + b]!, 0x01000193);
  return (hash ^ (hash >>> 16)) >>> 0;
}
