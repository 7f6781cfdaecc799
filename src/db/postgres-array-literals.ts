import type { PackedRows } from './packed-rows.js';

// PostgreSQL array literals ('{"a","b",NULL}') of packed rows' columns, written byte for byte
// from the packed UTF-8 texts: no string per value, no escaping call per value. node-postgres
// turned each value of a JS array into its literal itself (a string per row and column, a regular
// expression per string): for 100,000 rows that, with the strings the rows were decoded into,
// kept the event loop busy ~490 of the ~710 ms PostgreSQL took to store them.
//
// Inside a quoted element only `"` and `\` need a backslash. UTF-8 continuation bytes are never
// 0x22, 0x5C or 0x00, so the bytes of a multi-byte character are copied as they are.

const OPEN = 0x7b; // {
const CLOSE = 0x7d; // }
const COMMA = 0x2c;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const NUL = 0x00;
const NULL_WORD = Buffer.from('NULL');
const HEX = Buffer.from('0123456789abcdef');

/**
 * The memory the literals are written in before they become strings, kept between calls: fresh
 * buffers of ~9 MB a chunk (100,000 rows: 180 MB) made V8 collect for their external memory
 * again and again. Kept up to SCRATCH_KEPT bytes (a chunk of findOrInsert's 5,000 rows needs
 * about 12 × its text bytes); a larger need is met once and let go.
 */
const SCRATCH_KEPT = 16 * 1024 * 1024;
let scratch = Buffer.alloc(0);
function scratchFor(bytes: number): Buffer {
  if (bytes <= scratch.length) return scratch;
  const fresh = Buffer.allocUnsafeSlow(bytes);
  if (bytes <= SCRATCH_KEPT) scratch = fresh;
  return fresh;
}

/**
 * The literals of rows `rows.rows[from .. from + count)`, one per column that varies by row, in
 * PackedRows order: the text columns, the binary column (bytea, hex), the integer columns. An
 * empty text is NULL, or '' in the columns of `keepEmpty`, and an integer past its column's end
 * NULL (as packedReader reads them).
 */
export function packedArrayLiterals(rows: PackedRows, from: number, count: number): string[] {
  const texts = Buffer.from(rows.texts.buffer, rows.texts.byteOffset, rows.texts.byteLength);
  const textCount = rows.textColumns.length;
  const keepEmpty = rows.textColumns.map((c) => rows.keepEmpty?.includes(c) ?? false);
  let textBytes = 0;
  for (let p = 0; p < count; p++) {
    const r = rows.rows[from + p]!;
    textBytes += rows.offsets[r + 1]! - rows.offsets[r]!;
  }
  // Room for every byte escaped, quotes, a comma or NULL per value, and the braces, per column.
  const room = 2 * textBytes + 6 * count + 2;
  const area = scratchFor(room * textCount);
  const outputs = Array.from({ length: textCount }, (_, c) => area.subarray(c * room, (c + 1) * room));
  const at = new Array<number>(textCount).fill(0);
  for (let c = 0; c < textCount; c++) outputs[c]![at[c]!++] = OPEN;
  // A byte at a time: fields are short (~25 bytes), where a native call per field cost more
  // than the loop (Buffer.copy and indexOf: ~0.4 µs each, six fields a row).
  for (let p = 0; p < count; p++) {
    const r = rows.rows[from + p]!;
    const end = rows.offsets[r + 1]!;
    let i = rows.offsets[r]!;
    for (let c = 0; c < textCount; c++) {
      const out = outputs[c]!;
      let o = at[c]!;
      if (p > 0) out[o++] = COMMA;
      if ((i >= end || texts[i] === NUL) && !keepEmpty[c]) {
        for (let k = 0; k < NULL_WORD.length; k++) out[o++] = NULL_WORD[k]!;
      } else {
        out[o++] = QUOTE;
        for (; i < end; i++) {
          const byte = texts[i]!;
          if (byte === NUL) break;
          if (byte === QUOTE || byte === BACKSLASH) out[o++] = BACKSLASH;
          out[o++] = byte;
        }
        out[o++] = QUOTE;
      }
      at[c] = o;
      i++; // past the NUL (or the end)
    }
  }
  const literals = outputs.map((out, c) => {
    out[at[c]!] = CLOSE;
    return out.toString('utf8', 0, at[c]! + 1);
  });

  // The binary column: each value as "\\x<hex>" (the array's backslash, then bytea's hex form).
  const { bytes, width } = rows.binary;
  const element = 5 + 2 * width + 1; // "\\x + hex + " and a comma
  const binary = Buffer.allocUnsafe(2 + count * element);
  let b = 0;
  binary[b++] = OPEN;
  for (let p = 0; p < count; p++) {
    if (p > 0) binary[b++] = COMMA;
    binary[b++] = QUOTE;
    binary[b++] = BACKSLASH;
    binary[b++] = BACKSLASH;
    binary[b++] = 0x78; // x
    const base = rows.rows[from + p]! * width;
    for (let i = 0; i < width; i++) {
      const byte = bytes[base + i]!;
      binary[b++] = HEX[byte >> 4]!;
      binary[b++] = HEX[byte & 15]!;
    }
    binary[b++] = QUOTE;
  }
  binary[b++] = CLOSE;
  literals.push(binary.toString('latin1', 0, b));

  for (const { values } of rows.integers) {
    let text = '{';
    for (let p = 0; p < count; p++) text += (p > 0 ? ',' : '') + (values[rows.rows[from + p]!] ?? 'NULL');
    literals.push(`${text}}`);
  }
  return literals;
}
