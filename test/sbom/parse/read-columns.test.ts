import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { AppError } from '../../../src/errors.js';
import {
  componentFields,
  componentKey,
  componentText,
  KEY_LENGTH,
  namePrefix,
  namedKeyRange,
  storedComponentText,
  writeComponentKey,
} from '../../../src/sbom/parse/component-rows.js';
import { jsonBytesMayHoldUnstorable } from '../../../src/shared/storable-text.js';
import {
  fieldsAt,
  keysBetween,
  READING_SLICES,
  type ReadingSlice,
  readSbomBytes,
  readSbomSlices,
  SLICE_OVERLAP_ONE_IN,
  textAt,
} from '../../../src/sbom/parse/read-sbom.js';
import { cycloneDx16, cycloneDx16ByName } from '../sbom-fixtures.js';

// The reading's byte columns (read-sbom.ts): each component's text at its offsets and its key at
// its position, for any text; and the strings that would make texts and offsets disagree are
// refused before any column is built.
describe('SBOM reading columns', () => {
  it('texts and keys line up with the components, multi-byte and empty ones included', () => {
    const doc = cycloneDx16(5);
    doc.components[1].name = 'zlib-ñandú-日本語-€-😀';
    doc.components[3].name = '𝔘𝔫𝔦𝔠𝔬𝔡𝔢';
    delete doc.components[2].version;
    const reading = readSbomBytes(Buffer.from(JSON.stringify(doc)));
    assert.equal(reading.count, 5);
    for (let i = 0; i < 5; i++) {
      assert.equal(textAt(reading, i).split('\u0000')[0], doc.components[i].name);
      assert.equal(keysBetween(reading, i, i + 1), componentKey(storedComponentText(fieldsAt(reading, i))));
    }
    assert.equal(keysBetween(reading, 0, 5).split(',').length, 5);
    assert.equal(keysBetween(reading, 2, 2), '');
    const none = readSbomBytes(Buffer.from(JSON.stringify(cycloneDx16(0))));
    assert.equal(none.count, 0);
    assert.equal(none.keys.byteLength, 0);
  });

  /** A key from its definition: the name's 3 bytes, then 13 of the text's SHA-256. */
  const expectedKey = (text: string) => {
    const name = namePrefix(text.split('\u0000')[0]!);
    const digest = createHash('sha256').update(text).digest();
    return Buffer.concat([Buffer.from([name >>> 16, (name >>> 8) & 0xff, name & 0xff]), digest.subarray(0, 13)]).toString('base64url');
  };

  it("the key is the base64url of the name's 3 bytes and the first 13 of the text's SHA-256", () => {
    for (let i = 0; i < 2_000; i++) {
      const text = componentText({
        name: `c-${i}-${'ü'.repeat(i % 7)}`,
        version: `${i}`,
        purl: null,
        type: 'library',
        licenses: [],
        ref: null,
      });
      assert.equal(componentKey(text), expectedKey(text));
    }
  });

  it('the key column holds the key of each text, written a character at a time', () => {
    const target = new Uint8Array(KEY_LENGTH + 2).fill(0x2c);
    for (let i = 0; i < 5_000; i++) {
      const text = `c-${i}-${['', 'ü', 'ü€', 'ü€😀'][i % 4]}\u0000${i * 7919}`;
      assert.equal(writeComponentKey(text, target, 1), namePrefix(text), 'it answers the prefix it wrote');
      assert.equal(Buffer.from(target).toString('latin1'), `,${expectedKey(text)},`, text);
    }
  });

  it("a name's keys lie in its range, and no other name's unless they share its 3 bytes", () => {
    const names = ['lodash', 'log4j-core', '@babel/core', 'zlib-ñandú-日本語-€-😀', '', 'a'.repeat(300)];
    for (const name of names) {
      const [low, high] = namedKeyRange(name);
      assert.equal(namePrefix(name), namePrefix(`${name}\u0000anything`), "a text gives its name's bytes");
      for (const version of ['1', '2.0.0', '']) {
        const key = Buffer.from(componentKey(`${name}\u0000${version}\u0000\u0000library\u0000\u0000`), 'base64url');
        assert.ok(Buffer.compare(low, key) <= 0 && Buffer.compare(key, high) <= 0, `${name}@${version}`);
      }
      for (const other of names.filter((n) => n !== name)) {
        const key = Buffer.from(componentKey(`${other}\u00001`), 'base64url');
        const inside = Buffer.compare(low, key) <= 0 && Buffer.compare(key, high) <= 0;
        assert.equal(inside, namePrefix(other) === namePrefix(name), `${other} in ${name}'s range`);
      }
    }
    // The first byte is the first character's (in the order SBOM tools list components, by
    // name); the other two spread names of one first character: 5,000 such names share few.
    assert.deepEqual(
      ['lodash', 'Lodash', '', 'ñ', '日本', '\u00ff', '\u00fe'].map((n) => namePrefix(n) >>> 16),
      [0x6c, 0x4c, 0, 0xf1, 0xff, 0xff, 0xfe],
    );
    const prefixes = new Set(Array.from({ length: 5_000 }, (_, i) => namePrefix(`package-${i}`)));
    assert.ok(prefixes.size > 4_750, `${prefixes.size} distinct prefixes`);
  });

  it("a component's licences are stored as the JSON array of them, whatever they hold", () => {
    const lists = [
      [],
      ['MIT'],
      ['MIT', 'Apache-2.0'],
      ['GPL-2.0-only WITH "Classpath-exception-2.0"', 'a\\b\n\t', 'ñandú 日本 😀', '\u2028'],
    ];
    for (const licenses of lists) {
      const text = componentText({ name: 'n', version: null, purl: null, type: null, licenses, ref: null });
      assert.equal(componentFields(text).licenses, licenses.length > 0 ? JSON.stringify(licenses) : null, JSON.stringify(licenses));
    }
  });

  it('a lone surrogate is refused as invalid_sbom naming its pointer, even where two would pair up across components', () => {
    // Joined, the first text's trailing high surrogate and the next one's leading low surrogate
    // would make one character of 4 UTF-8 bytes where 3 + 3 were counted.
    const json = JSON.stringify(cycloneDx16(3))
      .replace('"bom-ref":"pkg:npm/lib-0@1.0.0"', '"bom-ref":"pkg:npm/lib-0@1.0.0\\ud800"')
      .replace('"name":"lib-1"', '"name":"\\udc00lib-1"');
    assert.ok(jsonBytesMayHoldUnstorable(Buffer.from(json)));
    assert.throws(
      () => readSbomBytes(Buffer.from(json)),
      (error: unknown) =>
        error instanceof AppError &&
        error.code === 'invalid_sbom' &&
        error.details?.[0]?.path === '/components/0/bom-ref' &&
        /lone UTF-16 surrogate/.test(error.details[0].message),
    );
    const inKey = JSON.stringify(cycloneDx16(1)).replace('"bomFormat"', '"x\\uDFFF":1,"bomFormat"');
    assert.throws(
      () => readSbomBytes(Buffer.from(inKey)),
      (error: unknown) => error instanceof AppError && error.details?.[0]?.path === '/x\udfff',
    );
  });

  it('a surrogate pair, or an escaped backslash before a u, is no reason to refuse', () => {
    const doc = cycloneDx16(2);
    doc.components[0].name = 'emoji-😀';
    doc.components[1].name = 'path\\ud800';
    const json = JSON.stringify(doc).replace('emoji-😀', 'emoji-\\ud83d\\ude00');
    assert.ok(json.includes('\\\\ud800'));
    const reading = readSbomBytes(Buffer.from(json));
    assert.equal(textAt(reading, 0).split('\u0000')[0], 'emoji-😀');
    assert.equal(textAt(reading, 1).split('\u0000')[0], 'path\\ud800');
    assert.equal(jsonBytesMayHoldUnstorable(Buffer.from(JSON.stringify(cycloneDx16(2)))), false);
  });

  /** The slices readSbomSlices hands over for `doc`. */
  const slicesOf = (doc: unknown, sizes?: { first: number; largest: number }) => {
    const slices: ReadingSlice[] = [];
    const summary = readSbomSlices(Buffer.from(JSON.stringify(doc)), (slice) => slices.push(slice), sizes);
    return { summary, slices };
  };

  it('hands the components over in slices growing to the largest, which put together are the whole reading', () => {
    const doc = cycloneDx16ByName(30);
    doc.components[4].name += '-ñandú-😀';
    doc.components[9].purl = 'pkg:npm/other@1.0.0';
    const whole = readSbomBytes(Buffer.from(JSON.stringify(doc)));
    const { summary, slices } = slicesOf(doc, { first: 3, largest: 8 });
    assert.deepEqual(summary, {
      detected: whole.detected,
      releaseVersion: whole.releaseVersion,
      subjectCpes: null,
      buildVerdicts: [],
      count: 30,
      conformance: whole.conformance,
    });
    assert.deepEqual(
      summary.conformance.map((r) => r.profile),
      ['bsi-tr-03183-2-v2.1', 'ntia-minimum'],
      'one report per profile, computed on the document the slices came from',
    );
    assert.equal(summary.conformance[0]!.components.total, 30 + (doc.metadata?.component ? 1 : 0));
    assert.deepEqual(
      slices.map((s) => [s.first, s.count]),
      [
        [0, 3],
        [3, 6],
        [9, 8],
        [17, 8],
        [25, 5],
      ],
    );
    for (const slice of slices) {
      assert.equal(slice.offsets.length, slice.count + 1);
      for (let i = 0; i < slice.count; i++) {
        assert.equal(textAt(slice, i), textAt(whole, slice.first + i));
        assert.equal(keysBetween(slice, i, i + 1), keysBetween(whole, slice.first + i, slice.first + i + 1));
        assert.equal(slice.forms[i], whole.forms[slice.first + i]);
        assert.equal(slice.purlNameDiffers[i], whole.purlNameDiffers[slice.first + i]);
      }
      assert.equal(keysBetween(slice, 0, slice.count), keysBetween(whole, slice.first, slice.first + slice.count));
      // Each column on memory of its own (so that it can move to another thread), no larger than it.
      for (const column of [slice.texts, slice.offsets, slice.keys, slice.purlNameDiffers, slice.forms]) {
        assert.equal(column.byteOffset, 0);
        assert.equal(column.buffer.byteLength, column.byteLength);
      }
    }
    assert.equal(whole.purlNameDiffers[9], 1);
  });

  it('one slice for a document of up to the first slice, an empty one for none, and none at all for a refused document', () => {
    const first = slicesOf(cycloneDx16(READING_SLICES.first));
    assert.deepEqual(
      first.slices.map((s) => [s.first, s.count]),
      [[0, READING_SLICES.first]],
    );
    const next = slicesOf(cycloneDx16(READING_SLICES.first + 1));
    assert.deepEqual(
      next.slices.map((s) => [s.first, s.count]),
      [
        [0, READING_SLICES.first],
        [READING_SLICES.first, 1],
      ],
    );
    const none = slicesOf(cycloneDx16(0));
    assert.deepEqual(
      none.slices.map((s) => [s.first, s.count, s.texts.byteLength, s.keys.byteLength]),
      [[0, 0, 0, 0]],
    );
    // Invalid only at its last component: refused before any slice is handed over.
    const refused = cycloneDx16(READING_SLICES.first * 3);
    delete refused.components.at(-1).name;
    const heard: ReadingSlice[] = [];
    assert.throws(
      () => readSbomSlices(Buffer.from(JSON.stringify(refused)), (slice) => heard.push(slice)),
      (error) => error instanceof AppError && error.code === 'invalid_sbom',
    );
    assert.deepEqual(heard, []);
  });

  it('hands slices over early only while each lands in a stretch of keys of its own', () => {
    const sizes = { first: 50, largest: 100 };
    const spans = (doc: unknown) => slicesOf(doc, sizes).slices.map((s) => [s.first, s.count]);
    // By name, as SBOM tools list components: each slice's keys start past the last one's
    // (but for the names of the character where they meet).
    assert.deepEqual(spans(cycloneDx16ByName(400)), [
      [0, 50],
      [50, 100],
      [150, 100],
      [250, 100],
      [350, 50],
    ]);
    // One letter's names running on past the first slice (30 of the second slice's 100 among
    // the first slice's keys, as in a large document whose names start with ~20 letters).
    const long = cycloneDx16ByName(400);
    long.components.forEach((c: { name: string }, i: number) => {
      c.name = i < 80 ? `a-${i}` : `${String.fromCharCode(98 + Math.floor(((i - 80) * 25) / 320))}-${i}`;
    });
    assert.deepEqual(spans(long), spans(cycloneDx16ByName(400)));
    // Every name starting alike (Go modules, say): their keys lie all over the same stretch, so
    // after the first slice the rest goes in one.
    assert.deepEqual(spans(cycloneDx16(400)), [
      [0, 50],
      [50, 350],
    ]);
    // Shuffled.
    const shuffled = cycloneDx16ByName(400);
    shuffled.components = shuffled.components.map((_: unknown, i: number, all: unknown[]) => all[(i * 157) % 400]);
    assert.deepEqual(spans(shuffled), [
      [0, 50],
      [50, 350],
    ]);
    // Two lists by name one after the other: the slice where the second begins lies more than
    // half among the slices before it (the second list's first 50, and a few of the first's), so
    // the rest goes in one.
    const twice = cycloneDx16ByName(200);
    const again = cycloneDx16ByName(200).components.map((c: { name: string; purl: string; version: string }) => {
      const name = `${c.name}-again`;
      const purl = `pkg:npm/${name}@${c.version}`;
      return { ...c, name, purl, 'bom-ref': purl };
    });
    twice.components.push(...again);
    assert.deepEqual(spans(twice), [
      [0, 50],
      [50, 100],
      [150, 250],
    ]);
    // A few names out of place (an SBOM tool sorting without case: `Zlib` among the `z`s) change nothing.
    const few = cycloneDx16ByName(400);
    for (const i of [120, 260]) few.components[i].name = `A-${i}`;
    assert.deepEqual(spans(few), spans(cycloneDx16ByName(400)));
    assert.equal(SLICE_OVERLAP_ONE_IN, 2);
  });
});
