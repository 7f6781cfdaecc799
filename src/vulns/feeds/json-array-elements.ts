// The elements of one array of a large JSON document, as their bytes, while the document streams
// in: the NVD's feed files and API pages hold every record in `vulnerabilities` (a yearly feed
// file is ~100 MB, the whole NVD ~2 GB), and parsing such a document whole would hold all of it
// in memory. Each element's bytes are handed on as soon as it closes, to be parsed on its own
// (json-text.ts); the envelope's small fields (`format`, `version`, `totalResults` …) are kept.
//
// Written here because the streaming JSON parsers on npm build every value token by token (a
// few MB/s), where this only finds where each element starts and ends: a byte scan that jumps
// from quote to quote inside strings. It checks the structure it walks (brackets balance,
// strings close); what is inside an element is JSON.parse's to check.

export class JsonStructureError extends Error {}

/** An element too large or too deep is not handed on: it is named by its position and skipped. */
export interface SkippedElement {
  index: number;
  reason: string;
}

export interface ArrayElementsOptions {
  /** The top-level key whose array is split (`vulnerabilities`). */
  key: string;
  /** The largest element handed on, in bytes. */
  maxElement: number;
  /** How deep an element may nest. */
  maxDepth: number;
  /** The largest other top-level value kept for `envelope()`; larger ones are passed over. */
  maxEnvelopeValue?: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

type State =
  | 'start'
  | 'key-or-end'
  | 'key'
  | 'key-text'
  | 'colon'
  | 'value'
  /** A top-level value other than the array: a string, an object or array (nested), a scalar. */
  | 'top-value'
  | 'scalar'
  | 'after-value'
  | 'array'
  | 'element'
  | 'done';

export class ArrayElements {
  private readonly opts: Required<ArrayElementsOptions>;
  private state: State = 'start';
  private inString = false;
  private escaped = false;
  /** Nesting inside the element or top-level value being read (0 for a string). */
  private depth = 0;
  private keyBytes: number[] = [];
  private key = '';
  /** The bytes of the element or top-level value being read, while within its bound. */
  private pieces: Buffer[] = [];
  private bytes = 0;
  private tooLarge = false;
  private tooDeep = false;
  private capturing = false;
  private index = 0;
  private readonly fields: Record<string, unknown> = {};
  private sawArray = false;

  constructor(options: ArrayElementsOptions) {
    this.opts = { maxEnvelopeValue: 4096, ...options };
  }

  /**
   * Scans `chunk`: every element that closes in it is handed to `element` (its own bytes), every
   * element skipped to `skipped`. Throws JsonStructureError when the document is not an object,
   * or its structure breaks.
   */
  push(chunk: Buffer, element: (bytes: Buffer, index: number) => void, skipped: (s: SkippedElement) => void): void {
    let start = this.capturing ? 0 : -1;
    const n = chunk.length;
    for (let i = 0; i < n; i++) {
      const c = chunk[i]!;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === BACKSLASH) this.escaped = true;
        else if (c === QUOTE) {
          this.inString = false;
          if (this.state === 'key-text') {
            this.key = Buffer.from(this.keyBytes).toString('utf8');
            this.state = 'colon';
          } else if (this.state === 'top-value' && this.depth === 0) {
            this.endValue(chunk, start, i + 1);
            start = -1;
          }
          continue;
        } else if (this.state !== 'key-text') {
          // Most of a record's bytes are inside strings: jump to the next quote or backslash.
          const q = chunk.indexOf(QUOTE, i + 1);
          const b = chunk.indexOf(BACKSLASH, i + 1);
          const next = q < 0 ? b : b < 0 ? q : Math.min(q, b);
          i = (next < 0 ? n : next) - 1;
          continue;
        }
        if (this.state === 'key-text') {
          if (this.keyBytes.length > 1024) throw new JsonStructureError('has a key longer than 1,024 bytes');
          this.keyBytes.push(c);
        }
        continue;
      }
      switch (this.state) {
        case 'element':
        case 'top-value':
          if (c === QUOTE) this.inString = true;
          else if (c === 0x7b || c === 0x5b) {
            if (++this.depth > this.opts.maxDepth) this.tooDeep = true;
          } else if (c === 0x7d || c === 0x5d) {
            if (--this.depth === 0) {
              if (this.state === 'element') this.endElement(chunk, start, i + 1, element, skipped);
              else this.endValue(chunk, start, i + 1);
              start = -1;
            }
          }
          continue;
        case 'scalar':
          if (c === 0x2c || c === 0x7d || isSpace(c)) {
            this.endValue(chunk, start, i);
            start = -1;
            i--; // the delimiter is the next state's
          }
          continue;
      }
      if (isSpace(c)) continue;
      switch (this.state) {
        case 'start':
          if (c !== 0x7b) throw new JsonStructureError('is not a JSON object');
          this.state = 'key-or-end';
          break;
        case 'key-or-end':
        case 'key':
          if (c === 0x7d && this.state === 'key-or-end') this.state = 'done';
          else if (c === QUOTE) {
            this.state = 'key-text';
            this.keyBytes = [];
            this.inString = true;
          } else throw new JsonStructureError('has an object key that is not a string');
          break;
        case 'colon':
          if (c !== 0x3a) throw new JsonStructureError(`has no ":" after the key "${this.key.slice(0, 100)}"`);
          this.state = 'value';
          break;
        case 'value':
          if (this.key === this.opts.key) {
            if (c !== 0x5b) throw new JsonStructureError(`has a "${this.opts.key}" that is not an array`);
            this.sawArray = true;
            this.state = 'array';
            break;
          }
          start = i;
          this.begin();
          if (c === QUOTE) {
            this.state = 'top-value';
            this.inString = true;
          } else if (c === 0x7b || c === 0x5b) {
            this.state = 'top-value';
            this.depth = 1;
          } else this.state = 'scalar';
          break;
        case 'after-value':
          if (c === 0x2c) this.state = 'key';
          else if (c === 0x7d) this.state = 'done';
          else throw new JsonStructureError(`has no "," or "}" after the value of "${this.key.slice(0, 100)}"`);
          break;
        case 'array':
          if (c === 0x2c) break;
          if (c === 0x5d) {
            this.state = 'after-value';
            break;
          }
          if (c !== 0x7b) throw new JsonStructureError(`has an item ${this.index} of "${this.opts.key}" that is not an object`);
          start = i;
          this.begin();
          this.state = 'element';
          this.depth = 1;
          break;
        case 'done':
          throw new JsonStructureError('has more after its closing "}"');
      }
    }
    if (start >= 0) this.keep(chunk, start, n);
  }

  private begin(): void {
    this.pieces = [];
    this.bytes = 0;
    this.tooLarge = false;
    this.tooDeep = false;
    this.capturing = true;
  }

  /** Keeps `chunk[from, to)` of what is being read, while within its bound. */
  private keep(chunk: Buffer, from: number, to: number): void {
    this.bytes += to - from;
    const bound = this.state === 'element' ? this.opts.maxElement : this.opts.maxEnvelopeValue;
    if (this.tooLarge || this.bytes > bound) {
      this.tooLarge = true;
      this.pieces = [];
      return;
    }
    // Chunks are kept by reference until the element closes (streams hand each chunk over once).
    this.pieces.push(chunk.subarray(from, to));
  }

  private take(): Buffer {
    const bytes = this.pieces.length === 1 ? Buffer.from(this.pieces[0]!) : Buffer.concat(this.pieces);
    this.pieces = [];
    this.capturing = false;
    return bytes;
  }

  private endValue(chunk: Buffer, from: number, to: number): void {
    this.keep(chunk, from, to);
    const tooLarge = this.tooLarge;
    const bytes = this.take();
    if (!tooLarge) {
      try {
        this.fields[this.key] = JSON.parse(bytes.toString('utf8'));
      } catch {
        throw new JsonStructureError(`has a value of "${this.key.slice(0, 100)}" that is not JSON`);
      }
    }
    this.depth = 0;
    this.state = 'after-value';
  }

  private endElement(
    chunk: Buffer,
    from: number,
    to: number,
    element: (bytes: Buffer, index: number) => void,
    skipped: (s: SkippedElement) => void,
  ): void {
    this.keep(chunk, from, to);
    const index = this.index++;
    const [tooLarge, tooDeep] = [this.tooLarge, this.tooDeep];
    const bytes = this.take();
    this.state = 'array';
    if (tooLarge) skipped({ index, reason: `is larger than ${this.opts.maxElement} bytes` });
    else if (tooDeep) skipped({ index, reason: `is nested more than ${this.opts.maxDepth} levels deep` });
    else element(bytes, index);
  }

  /** After the last chunk: the envelope's fields, or JsonStructureError when the document did not end. */
  end(): { fields: Record<string, unknown>; elements: number; sawArray: boolean } {
    if (this.state === 'scalar') this.endValue(Buffer.alloc(0), 0, 0);
    if (this.state !== 'done') throw new JsonStructureError('ends before its closing "}"');
    return { fields: this.fields, elements: this.index, sawArray: this.sawArray };
  }
}
