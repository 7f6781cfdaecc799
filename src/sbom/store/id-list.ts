// A revision's components as one packed list of component ids in document order: each id as
// the zigzag varint of its difference to the previous one. Revisions of one product share
// most components, whose ids were handed out together, so most entries take one byte
// (~10 kB for 10,000 components, where a row per component took ~170 bytes).

export function encodeIds(ids: ArrayLike<number>): Buffer {
  const out = Buffer.allocUnsafe(ids.length * 5 + 16);
  let at = 0;
  let previous = 0;
  for (let i = 0; i < ids.length; i++) {
    const delta = ids[i]! - previous;
    previous = ids[i]!;
    // Zigzag keeps small negative differences small; arithmetic on doubles, exact for any id below 2^52.
    let z = delta >= 0 ? delta * 2 : -delta * 2 - 1;
    while (z >= 0x80) {
      out[at++] = (z % 0x80) | 0x80;
      z = Math.floor(z / 0x80);
    }
    out[at++] = z;
  }
  return Buffer.from(out.subarray(0, at));
}

export function decodeIds(bytes: Uint8Array): number[] {
  const ids: number[] = [];
  forEachId(bytes, (id) => {
    ids.push(id);
  });
  return ids;
}

/** Which of `wanted` the list holds, each once, in the order first met; decodes without building the list. */
export function idsAmong(bytes: Uint8Array, wanted: ReadonlySet<number>): number[] {
  const found: number[] = [];
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  for (const id of wanted) [lo, hi] = [Math.min(lo, id), Math.max(hi, id)];
  // Two comparisons rule out nearly every id before the set is asked.
  forEachId(bytes, (id) => {
    if (id >= lo && id <= hi && wanted.has(id) && !found.includes(id)) found.push(id);
  });
  return found;
}

function forEachId(bytes: Uint8Array, visit: (id: number) => void): void {
  let previous = 0;
  let at = 0;
  while (at < bytes.length) {
    let z = 0;
    let scale = 1;
    let byte: number;
    do {
      byte = bytes[at++]!;
      z += (byte & 0x7f) * scale;
      scale *= 0x80;
    } while (byte & 0x80 && at < bytes.length);
    previous += z % 2 === 0 ? z / 2 : -(z + 1) / 2;
    visit(previous);
  }
}
