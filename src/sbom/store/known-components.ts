import { randomBytes } from 'node:crypto';
import { KEY_LENGTH } from '../parse/component-rows.js';

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
 * `stride`), in one open-addressing table per organisation (KeyTable). Finding and remembering
 * build no string and no object per key, so 100,000 keys leave nothing for the event loop's
 * garbage collector (a Map of strings grew its heap by ~15 MB per such upload, and reads beside
 * the upload waited for the collection).
 *
 * Bounded by the bytes of its tables (64–128 per key, at least KeyTable.MIN_BYTES per
 * organisation). Past the bound, the organisations used least recently are forgotten first; an
 * organisation that alone would outgrow it starts over.
 */
export class KnownComponents {
  // Least recently used first: an organisation is moved to the end on each use.
  readonly #orgs = new Map<string, KeyTable>();
  #bytes = 0;

  /** @param maxBytes the bytes of all tables together */
  constructor(readonly maxBytes: number) {}

  /** Keys remembered in all organisations. */
  get size(): number {
    let size = 0;
    for (const table of this.#orgs.values()) size += table.size;
    return size;
  }

  /** Bytes of all tables. */
  get bytes(): number {
    return this.#bytes;
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
   * Makes room for `more` keys of the organisation at once, so that remembering them a slice at
   * a time grows no table in between (growing copies every key the table holds). An
   * organisation that would alone outgrow the bound starts over; with `more` keys over the
   * bound, it is forgotten, and remember() keeps nothing of it until a smaller document.
   */
  reserve(orgId: string, more: number): void {
    const known = this.#touch(orgId);
    if (known && KeyTable.bytesFor(known.size + more) > this.maxBytes) this.#forget(orgId, known);
    if (KeyTable.bytesFor(more) > this.maxBytes) return;
    const table = this.#orgs.get(orgId);
    if (table) this.#resize(table, () => table.reserve(table.size + more));
    else {
      const fresh = new KeyTable(more);
      this.#orgs.set(orgId, fresh);
      this.#bytes += fresh.bytes;
    }
    this.#evictOthers(orgId);
  }

  /**
   * Remembers the committed ids of the keys at `positions` (ids[i] for the i-th key; 0 is not an
   * id and is skipped), in the room reserve() made for them: an organisation it did not make
   * room for (forgotten since, or never reserved) keeps nothing of them.
   */
  remember(orgId: string, keys: Uint8Array, stride: number, ids: Float64Array, positions: readonly number[]): void {
    const table = this.#touch(orgId);
    if (!table) return;
    this.#resize(table, () => {
      for (const i of positions) {
        const id = ids[i]!;
        if (id !== 0) table.set(keys, i * stride, id);
      }
    });
    // Past the room made for it (two uploads of the organisation at once, each remembering into
    // the room the other made): grown alone over the bound, it is forgotten.
    if (table.bytes > this.maxBytes) this.#forget(orgId, table);
    else this.#evictOthers(orgId);
  }

  /** Forgets the organisations used least recently (never `orgId`, the most recent) until within the bound. */
  #evictOthers(orgId: string): void {
    for (const [other, theirs] of this.#orgs) {
      if (this.#bytes <= this.maxBytes || other === orgId) break;
      this.#forget(other, theirs);
    }
  }

  #resize(table: KeyTable, change: () => void): void {
    const before = table.bytes;
    change();
    this.#bytes += table.bytes - before;
  }

  #forget(orgId: string, table: KeyTable): void {
    this.#orgs.delete(orgId);
    this.#bytes -= table.bytes;
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

const SLOT_BYTES = 32;
const ID_STEP = SLOT_BYTES / 8;
const ID_AT = ID_STEP - 1; // bytes 24–31, after the key's 22
/** At most half full with a keyed hash, a probe passes 2 slots on average; 64 only under attack. */
const MAX_PROBE = 64;

/**
 * Keys of KEY_LENGTH bytes to ids (positive; 0 marks an empty slot), by linear probing in a
 * table at most half full. A slot is 32 bytes, the key then its id, so a probe reads one cache
 * line (with keys and ids apart, a lookup in a table of 100,000 took two misses, ~250 ns against
 * 120).
 *
 * Keys are SHA-256 digests of text the uploader writes, so anyone can compute them: a fixed
 * hash would let a tenant craft components whose keys all fall on a few slots and make every
 * probe walk them (seconds of the event loop for 100,000). So the hash is keyed with random
 * words drawn when the process starts, and a probe gives up after MAX_PROBE slots: such a key
 * is not remembered (and is looked up in the database, as any key not remembered is).
 */
export class KeyTable {
  static readonly MIN_CAPACITY = 16;
  static readonly MIN_BYTES = KeyTable.MIN_CAPACITY * SLOT_BYTES;

  /** Bytes of a table with room for `entries` keys. */
  static bytesFor(entries: number): number {
    return capacityFor(entries) * SLOT_BYTES;
  }

  #bytes: Uint8Array;
  #ids: Float64Array; // the id of slot s at index s * ID_STEP + ID_AT
  #mask: number;
  #size = 0;

  /** @param entries keys the table has room for at first (it grows as needed) */
  constructor(entries: number) {
    const capacity = capacityFor(entries);
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

  get bytes(): number {
    return this.#bytes.byteLength;
  }

  /** The id of the key at `at` of `source`, or 0. */
  get(source: Uint8Array, at: number): number {
    let slot = slotOf(source, at) & this.#mask;
    for (let probe = 0; probe < MAX_PROBE; probe++, slot = (slot + 1) & this.#mask) {
      const id = this.#ids[slot * ID_STEP + ID_AT]!;
      if (id === 0 || this.#holds(slot, source, at)) return id;
    }
    return 0;
  }

  /**
   * Remembers the key at `at` of `source` with `id` (> 0); a key already there keeps its id.
   * Returns false for a key left out: one whose probe would pass MAX_PROBE slots.
   */
  set(source: Uint8Array, at: number, id: number): boolean {
    if (2 * (this.#size + 1) > this.capacity) this.reserve(this.#size + 1);
    let slot = slotOf(source, at) & this.#mask;
    for (let probe = 0; probe < MAX_PROBE; probe++, slot = (slot + 1) & this.#mask) {
      if (this.#ids[slot * ID_STEP + ID_AT] === 0) {
        const base = slot * SLOT_BYTES;
        for (let b = 0; b < KEY_LENGTH; b++) this.#bytes[base + b] = source[at + b]!;
        this.#ids[slot * ID_STEP + ID_AT] = id;
        this.#size++;
        return true;
      }
      if (this.#holds(slot, source, at)) return true;
    }
    return false;
  }

  /** Grows the table (once, by powers of two) so that `entries` keys fit at most half full. */
  reserve(entries: number): void {
    const capacity = capacityFor(entries);
    if (capacity <= this.capacity) return;
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

/** The power of two (at least MIN_CAPACITY) that holds `entries` keys at most half full. */
function capacityFor(entries: number): number {
  let capacity = KeyTable.MIN_CAPACITY;
  while (capacity < 2 * entries) capacity *= 2;
  return capacity;
}

const SEED = randomBytes(8);
const SEED_LOW = SEED.readInt32LE(0);
const SEED_HIGH = SEED.readInt32LE(4);

/** The first eight bytes of the key as two words, each keyed with the seed and mixed (murmur3's fmix32). */
function slotOf(source: Uint8Array, at: number): number {
  const low = source[at]! | (source[at + 1]! << 8) | (source[at + 2]! << 16) | (source[at + 3]! << 24);
  const high = source[at + 4]! | (source[at + 5]! << 8) | (source[at + 6]! << 16) | (source[at + 7]! << 24);
  return (fmix32(low ^ SEED_LOW) ^ Math.imul(fmix32(high ^ SEED_HIGH), 0x9e3779b1)) >>> 0;
}

function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}
