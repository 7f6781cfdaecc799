import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { ArrayElements, JsonStructureError, type SkippedElement } from '../../../src/vulns/feeds/json-array-elements.js';

const FEED = gunzipSync(readFileSync(new URL('../../fixtures/firmware/nvd/nvdcve-2.0-sample.json.gz', import.meta.url)));

/** Splits `bytes` into chunks of the sizes `sizes` gives, in turn, and collects what comes out. */
function split(bytes: Buffer, sizes: () => number, options = { key: 'vulnerabilities', maxElement: 1 << 20, maxDepth: 64 }) {
  const reader = new ArrayElements(options);
  const elements: unknown[] = [];
  const skipped: SkippedElement[] = [];
  for (let at = 0; at < bytes.length; ) {
    const size = Math.max(1, sizes());
    // Each chunk a copy of its own, as a stream hands them over.
    reader.push(
      Buffer.from(bytes.subarray(at, at + size)),
      (b) => elements.push(JSON.parse(b.toString('utf8'))),
      (s) => skipped.push(s),
    );
    at += size;
  }
  return { ...reader.end(), items: elements, skipped };
}

/** A deterministic generator of chunk sizes (mulberry32). */
function sizesFrom(seed: number, max: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return 1 + (((t ^ (t >>> 14)) >>> 0) % max);
  };
}

describe('the elements of a streamed JSON array', () => {
  it('hands on every record of a real NVD 2.0 feed file, whatever the chunks, with the envelope', () => {
    const whole = JSON.parse(FEED.toString('utf8')) as {
      vulnerabilities: unknown[];
      format: string;
      version: string;
      totalResults: number;
    };
    for (const [seed, max] of [
      [1, 1],
      [2, 7],
      [3, 64],
      [4, 4096],
      [5, FEED.length],
    ] as const) {
      const read = split(FEED, sizesFrom(seed, max));
      assert.deepEqual(read.items, whole.vulnerabilities, `chunks of up to ${max} bytes`);
      assert.equal(read.elements, whole.vulnerabilities.length);
      assert.equal(read.fields.format, 'NVD_CVE');
      assert.equal(read.fields.version, '2.0');
      assert.equal(read.fields.totalResults, whole.totalResults);
      assert.equal(read.sawArray, true);
    }
  });

  it('reads strings that hold quotes, backslashes, brackets and multi-byte characters across chunk edges', () => {
    const items = [
      { s: 'a "quoted" {brace} [bracket] \\ back\\slash \\"' },
      { s: 'Grüße, 漢字, 🎉', t: ['}', ']', '{', '['] },
      { nested: { deeper: [{ x: '\\' }, { y: '"}' }] } },
    ];
    const doc = Buffer.from(JSON.stringify({ before: 'x"}', vulnerabilities: items, after: { n: [1, 2, { z: null }] }, last: 12.5e3 }));
    for (const max of [1, 2, 3, 5, 11, 1000]) {
      const read = split(doc, sizesFrom(max, max));
      assert.deepEqual(read.items, items, `chunks of up to ${max} bytes`);
      assert.deepEqual(read.fields, { before: 'x"}', after: { n: [1, 2, { z: null }] }, last: 12500 });
    }
  });

  it('reads pretty-printed documents and an empty array', () => {
    const doc = Buffer.from(JSON.stringify({ totalResults: 0, vulnerabilities: [] }, null, 2));
    const read = split(doc, () => 3);
    assert.deepEqual(read.items, []);
    assert.equal(read.fields.totalResults, 0);
    assert.equal(read.sawArray, true);
  });

  it('skips an element too large or too deep, naming its position, and reads on', () => {
    const big = { cve: { id: 'CVE-2024-0001', text: 'x'.repeat(5000) } };
    let deep: unknown = 'bottom';
    for (let i = 0; i < 80; i++) deep = [deep];
    const doc = Buffer.from(
      JSON.stringify({ vulnerabilities: [{ cve: { id: 'CVE-2024-0000' } }, big, { deep }, { cve: { id: 'CVE-2024-0003' } }] }),
    );
    const read = split(doc, sizesFrom(9, 100), { key: 'vulnerabilities', maxElement: 1000, maxDepth: 64 });
    assert.deepEqual(read.items, [{ cve: { id: 'CVE-2024-0000' } }, { cve: { id: 'CVE-2024-0003' } }]);
    assert.deepEqual(read.skipped, [
      { index: 1, reason: 'is larger than 1000 bytes' },
      { index: 2, reason: 'is nested more than 64 levels deep' },
    ]);
    assert.equal(read.elements, 4);
  });

  it('passes over a large envelope value without keeping it', () => {
    const doc = Buffer.from(JSON.stringify({ notes: 'n'.repeat(10_000), vulnerabilities: [{ a: 1 }] }));
    const read = split(doc, () => 333);
    assert.deepEqual(read.items, [{ a: 1 }]);
    assert.equal('notes' in read.fields, false);
  });

  it('refuses what is not such a document, saying why', () => {
    const cases: Array<[string, RegExp]> = [
      ['[1, 2]', /is not a JSON object/],
      ['{"vulnerabilities": {"a": 1}}', /"vulnerabilities" that is not an array/],
      ['{"vulnerabilities": [1, 2]}', /item 0 of "vulnerabilities" that is not an object/],
      ['{"vulnerabilities": [{"a": 1}]', /ends before its closing "}"/],
      ['{"vulnerabilities": [{"a": "unterminated}]}', /ends before its closing "}"/],
      ['{"a" 1}', /no ":" after the key "a"/],
      ['{"a": 1 "b": 2}', /no "," or "}" after the value of "a"/],
      ['{"a": tru, "vulnerabilities": []}', /value of "a" that is not JSON/],
      ['{"vulnerabilities": []} {}', /more after its closing "}"/],
      ['{1: 2}', /key that is not a string/],
    ];
    for (const [text, why] of cases) {
      assert.throws(
        () => split(Buffer.from(text), () => 4),
        (error: unknown) => error instanceof JsonStructureError && why.test(error.message),
        text,
      );
    }
  });
});
