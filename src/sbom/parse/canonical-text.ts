// Exact comparison for findDuplicate (find-duplicate.ts): items whose structural hashes collide
// are told apart by this text.

/**
 * Canonical JSON text: objects with the same key set always list their keys in one order (the
 * first order met for that set), so equal values give equal text whatever their key order,
 * as ajv's deep equality has it. Documents from one generator share key orders, so the
 * native JSON.stringify of the value itself is almost always already canonical; a reordered
 * copy is made only for an object that differs.
 */
export class CanonicalText {
  /** Key order as met (keys joined by NUL) → that order and its canonical order (null: itself). */
  private readonly orders = new Map<string, { keys: string[]; canonical: string[] | null }>();
  /** Sorted key set → its canonical order. */
  private readonly bySet = new Map<string, string[]>();

  of(value: unknown): string {
    return JSON.stringify(this.isCanonical(value) ? value : this.reordered(value));
  }

  private canonicalOrder(keys: string[]): string[] | null {
    const signature = keys.join('\u0000');
    const known = this.orders.get(signature);
    // A key holding NUL could make two orders share a signature: then compare the real keys.
    if (known && sameKeys(known.keys, keys)) return known.canonical;
    const set = JSON.stringify([...keys].sort());
    const canonical = this.bySet.get(set) ?? keys;
    this.bySet.set(set, canonical);
    const order = canonical === keys ? null : canonical;
    if (!known) this.orders.set(signature, { keys, canonical: order });
    return order;
  }

  private isCanonical(value: unknown): boolean {
    if (value === null || typeof value !== 'object') return true;
    if (Array.isArray(value)) return value.every((item) => this.isCanonical(item));
    const keys = Object.keys(value);
    if (keys.length > 1 && this.canonicalOrder(keys) !== null) return false;
    for (const key of keys) if (!this.isCanonical((value as Record<string, unknown>)[key])) return false;
    return true;
  }

  private reordered(value: unknown): unknown {
    if (value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) return value.map((item) => this.reordered(item));
    const source = value as Record<string, unknown>;
    const keys = Object.keys(source);
    const out: Record<string, unknown> = {};
    for (const key of (keys.length > 1 && this.canonicalOrder(keys)) || keys) out[key] = this.reordered(source[key]);
    return out;
  }
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
