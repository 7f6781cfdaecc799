// The bucket key of findDuplicate (find-duplicate.ts): a cheap hash that equal JSON values
// always share, so only items in one bucket need an exact comparison.

const fmix = (h: number): number => {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) | 0;
};

/** Characters hashed from each end of a long string: bounds the cost per string; the bucket key need not be exact. */
const STRING_SAMPLE = 16;
const TAG_STRING = 0x3c6ef372;
const TAG_NUMBER = 0x1b873593;
const TAG_TRUE = 0x5bd1e995;
const TAG_FALSE = 0x68e31da4;
const TAG_NULL = 0x2f8a3c71;

/** FNV-1a over the string's length and UTF-16 units (the first and last STRING_SAMPLE of a long one). */
function stringHash(s: string): number {
  const n = s.length;
  let h = Math.imul(0x811c9dc5 ^ n, 0x01000193);
  if (n <= 2 * STRING_SAMPLE) {
    for (let i = 0; i < n; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  } else {
    for (let i = 0; i < STRING_SAMPLE; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
    for (let i = n - STRING_SAMPLE; i < n; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  }
  return h;
}

/** Levels of nesting the bucket key looks into: deeper values count only by kind and size. */
const HASH_DEPTH = 2;

/**
 * A 32-bit bucket key of a JSON value that ignores object key order: strings hashed in place
 * (no Map of every distinct value, no text built), object members combined commutatively,
 * array items in order, and only HASH_DEPTH levels deep (items of a large array differ near
 * the top: ids, names, versions; hashing all of each one cost twice as much). Equal values (as
 * ajv's deep equality has it) always get equal keys; unequal ones may share a key, which only
 * costs an exact comparison.
 */
export class StructuralHash {
  /** Member name → its hash: a document repeats a few names on every item. */
  private readonly names = new Map<string, number>();

  private name(key: string): number {
    let h = this.names.get(key);
    if (h === undefined) {
      h = stringHash(key);
      this.names.set(key, h);
    }
    return h;
  }

  of(value: unknown, depth = HASH_DEPTH): number {
    switch (typeof value) {
      case 'string':
        return fmix(stringHash(value) ^ TAG_STRING);
      case 'number':
        // -0 and 0 are equal for ajv, and `| 0` maps both to 0.
        return fmix((Number.isInteger(value) && Math.abs(value) <= 0x7fffffff ? value | 0 : stringHash(String(value))) ^ TAG_NUMBER);
      case 'boolean':
        return value ? TAG_TRUE : TAG_FALSE;
      case 'object': {
        if (value === null) return TAG_NULL;
        if (Array.isArray(value)) {
          let h = 0x811c9dc5 ^ value.length;
          if (depth > 0) for (let i = 0; i < value.length; i++) h = Math.imul(h ^ this.of(value[i], depth - 1), 16777619);
          return fmix(h);
        }
        let sum = 0;
        let count = 0;
        for (const key in value) {
          if (depth > 0)
            sum = (sum + fmix(Math.imul(this.name(key), 0x27d4eb2d) ^ this.of((value as Record<string, unknown>)[key], depth - 1))) | 0;
          count++;
        }
        return fmix(sum ^ Math.imul(count, 0x165667b1));
      }
      default:
        return 0;
    }
  }
}
