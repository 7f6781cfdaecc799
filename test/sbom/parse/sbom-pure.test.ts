import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import type { AppError } from '../../../src/errors.js';
import { Ajv } from 'ajv';
import {
  cycloneDxValidator,
  DETAIL_WINDOW,
  validateCycloneDx,
  withAppendedErrors,
  withoutCallContexts,
} from '../../../src/sbom/parse/cyclonedx-validator.js';
import { detectFormat } from '../../../src/sbom/parse/detect-format.js';
import { FAST_PATTERNS, withFastPatterns } from '../../../src/sbom/parse/fast-patterns.js';
import { withSetEnums } from '../../../src/sbom/parse/large-enums.js';
import { type NormalisedComponent, normaliseCycloneDx, normaliseSpdx2 } from '../../../src/sbom/parse/normalise.js';
import { mayBePoisoned, parseDocument } from '../../../src/sbom/parse/parse-document.js';
import { readSbomBytes, textAt } from '../../../src/sbom/parse/read-sbom.js';
import { componentFields } from '../../../src/sbom/parse/component-rows.js';
import { distinctAtOneMember, findDuplicate } from '../../../src/sbom/parse/find-duplicate.js';
import { withLinearUniqueItems } from '../../../src/sbom/parse/unique-items.js';
import { cycloneDx16 } from '../sbom-fixtures.js';

describe('findDuplicate (linear uniqueItems)', () => {
  it('finds equal items whatever their key order, and only equal ones', () => {
    assert.equal(
      findDuplicate([
        { a: 1, b: [1, { x: 1, y: 2 }] },
        { a: 1, b: [1, { x: 1, y: 3 }] },
      ]),
      null,
    );
    assert.deepEqual(findDuplicate([{ a: 1, b: [1, { x: 1, y: 2 }] }, { c: 0 }, { b: [1, { y: 2, x: 1 }], a: 1 }]), {
      index: 2,
      firstIndex: 0,
    });
    assert.equal(findDuplicate([1, '1', true, 'true', null, 'null']), null);
    assert.deepEqual(findDuplicate(['a', 'b', 'a']), { index: 2, firstIndex: 0 });
    assert.equal(
      findDuplicate([
        [1, 2],
        [2, 1],
      ]),
      null,
      'array order matters',
    );
    assert.equal(
      findDuplicate([
        { 'a\u0000': 1, b: 2 },
        { a: 1, '\u0000b': 2 },
      ]),
      null,
      'keys holding NUL do not collide',
    );
  });

  it('agrees with pairwise deep equality on random arrays, small and large, deep and shallow', () => {
    // Deterministic pseudo-random values: few distinct leaves, so equal items (in other key
    // orders) and items differing only deep inside (beyond the hash depth) are common.
    let seed = 42;
    const rnd = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff;
      return seed % n;
    };
    const value = (depth: number): unknown => {
      const kind = depth > 3 ? rnd(3) : rnd(5);
      if (kind === 0) return ['a', 'b', 'x'.repeat(40) + rnd(2) + 'y'.repeat(40)][rnd(3)];
      if (kind === 1) return [0, 1, 1.5, true, null][rnd(5)];
      if (kind === 2) return String(rnd(3));
      if (kind === 3) return Array.from({ length: rnd(3) }, () => value(depth + 1));
      const keys = ['k', 'l', 'm'].filter(() => rnd(2) === 1);
      if (rnd(2)) keys.reverse();
      return Object.fromEntries(keys.map((k) => [k, value(depth + 1)]));
    };
    const naive = (items: unknown[]) => {
      for (let i = 1; i < items.length; i++)
        for (let j = 0; j < i; j++) if (isDeepStrictEqual(items[j], items[i])) return { index: i, firstIndex: j };
      return null;
    };
    let found = 0;
    for (let round = 0; round < 400; round++) {
      const items = Array.from({ length: 1 + rnd(round % 2 ? 6 : 40) }, () => value(0));
      const expected = naive(items);
      if (expected) found++;
      assert.deepEqual(findDuplicate(items), expected, JSON.stringify(items));
    }
    assert.ok(found > 50 && found < 390, `both outcomes are exercised (${found} with duplicates)`);
  });

  it('tells objects apart by a member no two share, and still finds equal ones among many', () => {
    const many = (n: number, make: (i: number) => unknown) => Array.from({ length: n }, (_, i) => make(i));
    // Distinct at `ref` (tried after `type`, which repeats), equal in everything else.
    assert.equal(findDuplicate(many(20, (i) => ({ type: 'library', ref: `r${i}`, deep: { x: 1 } }))), null);
    // Two items equal in full: every member repeats, so the hashes find them.
    const twins = many(20, (i) => ({ type: 'library', ref: `r${i}` }));
    twins[15] = { ref: 'r3', type: 'library' };
    assert.deepEqual(findDuplicate(twins), { index: 15, firstIndex: 3 });
    // The member missing from one item (or not a string there) proves nothing about that item.
    const gap = many(20, (i) => ({ ref: `r${i}`, v: 1 }));
    gap[10] = { v: 1 };
    gap[12] = { v: 1 };
    assert.deepEqual(findDuplicate(gap), { index: 12, firstIndex: 10 });
    const numbers = many(20, (i) => ({ ref: `r${i}` }));
    numbers[5] = { ref: 5 };
    numbers[9] = { ref: 5 };
    assert.deepEqual(findDuplicate(numbers), { index: 9, firstIndex: 5 });
    // Not objects at all, or arrays: left to the hashes.
    assert.deepEqual(findDuplicate([...many(10, (i) => ({ ref: `r${i}` })), ['r1'], ['r1']]), { index: 11, firstIndex: 10 });
    assert.equal(findDuplicate(many(20, (i) => [`r${i}`])), null);
  });

  it('takes the shortcut only when one member proves every item different', () => {
    const many = (n: number, make: (i: number) => unknown) => Array.from({ length: n }, (_, i) => make(i));
    assert.equal(distinctAtOneMember(many(20, (i) => ({ type: 'library', ref: `r${i}` }))), true, 'the second member proves it');
    assert.equal(distinctAtOneMember(many(20, (i) => ({ type: 'library', ref: `r${i % 19}` }))), false, 'a repeat');
    assert.equal(distinctAtOneMember(many(20, (i) => ({ ref: i === 7 ? 7 : `r${i}` }))), false, 'a number there');
    assert.equal(distinctAtOneMember(many(20, (i) => (i === 7 ? {} : { ref: `r${i}` }))), false, 'missing there');
    // Names an object inherits read as functions, never as strings.
    assert.equal(distinctAtOneMember(many(20, (i) => (i === 7 ? {} : { toString: `r${i}`, constructor: `c${i}` }))), false);
    assert.equal(distinctAtOneMember(many(20, (i) => [`r${i}`])), false, 'arrays');
    assert.equal(distinctAtOneMember([{ ref: 'a' }, 'a', { ref: 'b' }]), false, 'not all objects');
    // Only the first few string members are tried.
    const late = many(20, (i) => ({ a: 'x', b: 'x', c: 'x', d: 'x', ref: `r${i}` }));
    assert.equal(distinctAtOneMember(late), false);
    assert.equal(findDuplicate(late), null, 'the hashes still tell them apart');
  });

  it('moves uniqueItems to the linear keyword everywhere in a schema copy', () => {
    const schema = { properties: { a: { type: 'array', uniqueItems: true, items: { properties: { b: { uniqueItems: true } } } } } };
    const copy = withLinearUniqueItems(schema);
    assert.ok(!JSON.stringify(copy).includes('"uniqueItems"'));
    assert.equal(JSON.stringify(copy).match(/x-unique-items/g)!.length, 2);
    assert.equal(schema.properties.a.uniqueItems, true, 'the original is untouched');
  });

  it('leaves data and names alone: a const or an example holding uniqueItems, a property named uniqueItems', () => {
    const schema = {
      properties: { uniqueItems: { type: 'array', uniqueItems: true }, list: { const: { uniqueItems: true } } },
      examples: [{ uniqueItems: true }],
      items: { uniqueItems: false },
    };
    const copy = withLinearUniqueItems(schema) as any;
    assert.deepEqual(copy.properties.uniqueItems, { type: 'array', 'x-unique-items': true }, 'a property named uniqueItems is a schema');
    assert.deepEqual(copy.properties.list, { const: { uniqueItems: true } }, 'a const is data: the value must still equal it');
    assert.deepEqual(copy.examples, [{ uniqueItems: true }]);
    assert.deepEqual(copy.items, { uniqueItems: false }, 'false asks nothing');
  });
});

describe('large string enums (a Set instead of a scan)', () => {
  it('rewrites only large all-string enums in schema positions', () => {
    const many = Array.from({ length: 20 }, (_, i) => `v${i}`);
    const schema = {
      properties: { enum: { enum: many }, small: { enum: ['a', 'b'] }, mixed: { enum: [...many, 1] } },
      const: { enum: many },
      examples: [{ enum: many }],
    };
    const copy = withSetEnums(schema) as any;
    assert.deepEqual(copy.properties.enum, { 'x-string-enum': many }, 'a property named enum is a schema, its enum keyword is rewritten');
    assert.deepEqual(copy.properties.small, { enum: ['a', 'b'] });
    assert.deepEqual(copy.properties.mixed.enum, [...many, 1]);
    assert.deepEqual(copy.const, { enum: many }, 'data is left as it is');
    assert.deepEqual(copy.examples, [{ enum: many }]);
  });

  it('rewrites inside the schemas that dependencies and dependentSchemas map names to, never the names', () => {
    const many = Array.from({ length: 20 }, (_, i) => `v${i}`);
    const schema = {
      dependencies: { enum: { properties: { x: { enum: many } } }, other: ['enum', 'x'] },
      dependentSchemas: { enum: { enum: many } },
    };
    const copy = withSetEnums(schema) as any;
    assert.deepEqual(copy.dependencies.enum, { properties: { x: { 'x-string-enum': many } } });
    assert.deepEqual(copy.dependencies.other, ['enum', 'x'], 'a list of names is left as it is');
    assert.deepEqual(copy.dependentSchemas.enum, { 'x-string-enum': many });
  });

  it('rejects what enum rejects, with the same message, and reports every failure', () => {
    const doc = cycloneDx16(4);
    assert.deepEqual(validateCycloneDx('1.6', doc), []);
    doc.components[1].licenses[0].license.id = 'Not-A-Licence';
    doc.components[2].licenses[0].license.id = 7;
    doc.components[3].name = 5;
    const details = validateCycloneDx('1.6', doc);
    const at = (path: string) => details.filter((d) => d.path === path).map((d) => d.message);
    assert.ok(at('/components/1/licenses/0/license/id').includes('must be equal to one of the allowed values'), JSON.stringify(details));
    assert.ok(at('/components/2/licenses/0/license/id').includes('must be string'), JSON.stringify(details));
    assert.ok(at('/components/3/name').includes('must be string'), JSON.stringify(details));
  });

  it('names each failure of a stand-in keyword at its own path', () => {
    const doc = cycloneDx16(4);
    for (const i of [0, 3]) doc.components[i].licenses[0].license.id = `Not-A-Licence-${i}`;
    for (const i of [1, 2]) (doc.components[i] as any).hashes = [{ alg: 'SHA-256', content: 'f'.repeat(60 + i) }];
    const paths = validateCycloneDx('1.6', doc).map((d) => d.path);
    for (const i of [0, 3]) assert.ok(paths.includes(`/components/${i}/licenses/0/license/id`), JSON.stringify(paths));
    for (const i of [1, 2]) assert.ok(paths.includes(`/components/${i}/hashes/0/content`), JSON.stringify(paths));
  });
});

describe('fast patterns (a plain function instead of a RegExp)', () => {
  it('accepts exactly the strings each pattern matches', () => {
    let seed = 7;
    const rnd = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff;
      return seed % n;
    };
    // Hex digits of both cases, their neighbours in ASCII, characters that fold to them in
    // other cases or forms, and control characters one bit away from digits.
    const alphabet = '0123456789abcdefABCDEF/:@G`gxX \n\u0010\u0019\u0130\u212a\uff10\u0660'.split('');
    const lengths = [0, 1, 31, 32, 33, 39, 40, 41, 63, 64, 65, 95, 96, 97, 127, 128, 129, 256];
    for (const [source, matches] of FAST_PATTERNS) {
      const regexp = new RegExp(source, 'u');
      let accepted = 0;
      for (let round = 0; round < 4_000; round++) {
        const length = lengths[rnd(lengths.length)]!;
        // Mostly hex, so that both outcomes are common; one odd character sometimes.
        const chars = Array.from({ length }, () => alphabet[rnd(22)]!);
        if (length > 0 && rnd(2) === 0) chars[rnd(length)] = alphabet[rnd(alphabet.length)]!;
        const value = chars.join('');
        assert.equal(matches(value), regexp.test(value), `${source} on ${JSON.stringify(value)}`);
        if (regexp.test(value)) accepted++;
      }
      assert.ok(accepted > 200 && accepted < 3_800, `both outcomes are exercised (${accepted} accepted)`);
    }
  });

  it('rewrites only known patterns in schema positions', () => {
    const [hex] = [...FAST_PATTERNS.keys()];
    const schema = {
      properties: { pattern: { type: 'string', pattern: hex }, other: { pattern: '^a+$' } },
      examples: [{ pattern: hex }],
    };
    const copy = withFastPatterns(schema) as any;
    assert.deepEqual(copy.properties.pattern, { type: 'string', 'x-fast-pattern': hex }, 'a property named pattern is a schema');
    assert.deepEqual(copy.properties.other, { pattern: '^a+$' });
    assert.deepEqual(copy.examples, [{ pattern: hex }], 'data is left as it is');
  });

  it('rejects a hash content with the error ajv gives for the pattern', () => {
    const doc = cycloneDx16(3);
    (doc.components[1] as any).hashes = [{ alg: 'SHA-256', content: 'f'.repeat(63) }];
    (doc.components[2] as any).hashes = [{ alg: 'SHA-1', content: 'f'.repeat(40) }];
    const [hex] = [...FAST_PATTERNS.keys()];
    assert.deepEqual(validateCycloneDx('1.6', doc), [{ path: '/components/1/hashes/0/content', message: `must match pattern "${hex}"` }]);
  });
});

describe('the fast validator passes no call contexts', () => {
  it('drops the context argument of calls, never an error object', () => {
    // As ajv writes them (ajv 8): a subschema call, a custom keyword call, a key in the path, an error.
    const code = [
      'if(!(validate12(data[i0], {instancePath:instancePath+"/components/" + i0,parentData:data,parentDataProperty:i0,rootData}))){}',
      'valid3 = keyword0.call(self, data1, {instancePath:instancePath+"/content",parentData:data,parentDataProperty:"content",rootData});',
      'validate0(data27[key0], {instancePath:instancePath+"/definitions/" + key0.replace(/~/g, "~0").replace(/\\//g, "~1"),parentData:data27,parentDataProperty:key0,rootData})',
      'validate24.errors = [{instancePath:instancePath+"/bom-ref",schemaPath:"#/minLength",keyword:"minLength",params:{limit: 1},message:"x"}];',
      'const err0 = {instancePath:instancePath+"/" + i0,schemaPath:"#/oneOf/0/items/required",keyword:"required",params:{missingProperty: missing0}};',
    ];
    const rewritten = withoutCallContexts(code.join('\n')).split('\n');
    assert.equal(rewritten[0], 'if(!(validate12(data[i0], undefined))){}');
    assert.equal(rewritten[1], 'valid3 = keyword0.call(self, data1, undefined);');
    assert.equal(rewritten[2], 'validate0(data27[key0], undefined)');
    assert.deepEqual(rewritten.slice(3), code.slice(3), 'error objects are left as they are');
  });

  it('matches the code this ajv generates (a recursive $ref compiles to a call)', () => {
    const codes: string[] = [];
    const process = (code: string) => {
      codes.push(code);
      return withoutCallContexts(code);
    };
    const ajv = new Ajv({ code: { process } });
    const validate = ajv.compile({
      definitions: { node: { type: 'object', properties: { kids: { type: 'array', items: { $ref: '#/definitions/node' } } } } },
      $ref: '#/definitions/node',
    });
    assert.ok(codes.length > 0);
    assert.ok(
      codes.some((code) => withoutCallContexts(code) !== code),
      'no call context replaced: ajv writes them differently now',
    );
    assert.equal(validate({ kids: [{ kids: [] }, {}] }), true);
    assert.equal(validate({ kids: [{ kids: 3 }] }), false);
  });

  it('gives the same verdicts, and the detailed validator still names the place', () => {
    const doc = cycloneDx16(3);
    (doc.components[2] as any).licenses = [{ license: { id: 'MIT', name: 'MIT' } }];
    const fast = cycloneDxValidator('1.6', 'fast');
    const detailed = cycloneDxValidator('1.6', 'detailed');
    assert.equal(fast(cycloneDx16(3)), true);
    assert.equal(fast(doc), false);
    assert.equal(detailed(doc), false);
    // The fast one's errors carry no path (their contexts were never built); nobody reads them.
    assert.ok(
      fast.errors!.every((e) => !e.instancePath.startsWith('/components')),
      JSON.stringify(fast.errors),
    );
    assert.ok(validateCycloneDx('1.6', doc).some((d) => d.path.startsWith('/components/2/licenses/0')));
  });
});

describe('the detailed validator gathers errors in bounded, linear work', () => {
  it('appends the errors of what it calls instead of concatenating arrays, in the code this ajv generates', () => {
    const code =
      'if(!(validate12(data[i0], ctx))){vErrors = vErrors === null ? validate12.errors : vErrors.concat(validate12.errors);errors = vErrors.length;}';
    assert.equal(
      withAppendedErrors(code),
      'if(!(validate12(data[i0], ctx))){if(vErrors === null){vErrors = validate12.errors.slice();}else{for(const e$ of validate12.errors){vErrors.push(e$);}}errors = vErrors.length;}',
    );
    const codes: string[] = [];
    const process = (c: string) => {
      codes.push(c);
      return withAppendedErrors(c);
    };
    const ajv = new Ajv({ allErrors: true, code: { process } });
    const validate = ajv.compile({
      type: 'array',
      items: { $ref: '#/definitions/item' },
      definitions: { item: { type: 'object', required: ['a', 'b'] } },
    });
    assert.ok(
      codes.some((c) => c.includes('.concat(')),
      'ajv gathers with concat',
    );
    assert.ok(
      codes.every((c) => !withAppendedErrors(c).includes('.concat(')),
      'no concat is left',
    );
    assert.equal(validate([{ a: 1 }, {}, { a: 1, b: 2 }]), false);
    assert.deepEqual(
      validate.errors!.map((e) => `${e.instancePath} ${e.params.missingProperty}`),
      ['/0 b', '/1 a', '/1 b'],
    );
  });

  it('names failures past the first window at their own index, duplicates too', () => {
    const n = DETAIL_WINDOW * 3;
    const doc = cycloneDx16(n);
    doc.components[DETAIL_WINDOW + 44].name = 7;
    doc.components[DETAIL_WINDOW * 2 + 5] = { ...doc.components[DETAIL_WINDOW + 3] };
    assert.deepEqual(validateCycloneDx('1.6', doc), [{ path: `/components/${DETAIL_WINDOW + 44}/name`, message: 'must be string' }]);
    doc.components[DETAIL_WINDOW + 44].name = 'fixed';
    // Both in the third window: named by their places in the whole list.
    doc.components[DETAIL_WINDOW * 2 + 9] = { ...doc.components[DETAIL_WINDOW * 2 + 1] };
    assert.deepEqual(validateCycloneDx('1.6', doc), [
      { path: `/components/${DETAIL_WINDOW * 2 + 9}`, message: `duplicates item ${DETAIL_WINDOW * 2 + 1} (items must be unique)` },
    ]);
    // Windows apart: found by the whole document's detailed run.
    doc.components[DETAIL_WINDOW * 2 + 9] = { ...doc.components[DETAIL_WINDOW * 2 + 8], name: 'other', 'bom-ref': 'other' };
    assert.deepEqual(validateCycloneDx('1.6', doc), [
      { path: `/components/${DETAIL_WINDOW * 2 + 5}`, message: `duplicates item ${DETAIL_WINDOW + 3} (items must be unique)` },
    ]);
  });

  it('names a duplicate inside an item past the first window by its index in that item', () => {
    const doc = cycloneDx16(2);
    doc.dependencies = Array.from({ length: DETAIL_WINDOW + 144 }, (_, i) => ({ ref: `r${i}`, dependsOn: ['a', 'b'] }));
    doc.dependencies[DETAIL_WINDOW + 44].dependsOn = ['x', 'y', 'x'];
    assert.deepEqual(validateCycloneDx('1.6', doc), [
      { path: `/dependencies/${DETAIL_WINDOW + 44}/dependsOn/2`, message: 'duplicates item 0 (items must be unique)' },
    ]);
  });

  it('windows only the arrays the schema names (CycloneDX 1.3 lets a document carry thousands of its own)', () => {
    const doc = cycloneDx16(DETAIL_WINDOW + 50);
    doc.specVersion = '1.3';
    for (let k = 0; k < 2_000; k++) doc[`own${k}`] = Array(DETAIL_WINDOW + 1).fill(0);
    doc.components[DETAIL_WINDOW + 40] = { ...doc.components[3] };
    assert.deepEqual(validateCycloneDx('1.3', doc), [
      { path: `/components/${DETAIL_WINDOW + 40}`, message: 'duplicates item 3 (items must be unique)' },
    ]);
  });

  it('reports the first failures of 20,000 failing components, as the first window holds them', () => {
    const doc = cycloneDx16(20_000);
    for (const c of doc.components) c.type = 'bogus';
    const details = validateCycloneDx('1.6', doc);
    assert.equal(details.length, 50);
    assert.equal(details[0]!.path, '/components/0/type');
    // The detailed run looked at one window, never at all 20,000 (its errors are its last run's).
    const gathered = cycloneDxValidator('1.6', 'detailed').errors!.length;
    assert.ok(gathered >= 50 && gathered <= 2 * DETAIL_WINDOW, `${gathered} errors gathered`);
    assert.ok(details.every((d) => /^\/components\/\d+\/type$/.test(d.path) && Number(d.path.split('/')[2]) < DETAIL_WINDOW));
  });
});

describe('parseDocument', () => {
  it('reads ASCII and UTF-8 documents alike (ASCII bytes are decoded as Latin-1, a plain copy)', () => {
    for (const doc of [
      { name: 'plain ascii', n: [1, 2.5, null, true] },
      { name: 'ñandú 日本 😀 €', ключ: 'значение' },
    ]) {
      const bytes = Buffer.from(JSON.stringify(doc));
      assert.deepEqual(parseDocument(bytes), doc);
    }
    // Bytes that are not UTF-8 are refused, never read as U+FFFD: "café" in Latin-1, a lone
    // continuation byte, a truncated sequence, an overlong form, an encoded surrogate.
    for (const bad of [[0xe9], [0x80], [0xe2, 0x82], [0xc0, 0xaf], [0xed, 0xa0, 0x80]]) {
      const bytes = Buffer.from([...Buffer.from('{"name":"caf'), ...bad, ...Buffer.from('"}')]);
      assert.throws(
        () => parseDocument(bytes),
        (e: AppError) => e.code === 'invalid_json' && /not UTF-8/.test(e.message),
        JSON.stringify(bad),
      );
    }
  });

  it('looks for constructor wherever its tail is, and for __proto__ and \\u escapes everywhere', () => {
    assert.equal(mayBePoisoned('{"name":"lib","purl":"pkg:npm/structure@1"}'), false);
    assert.equal(mayBePoisoned('{"name":"conductor"}'), false, 'the tail alone is not enough');
    for (const text of ['{"constructor":{}}', '{"a":"x constructor y"}', '{"__proto__":1}', '{"\\u0063":1}']) {
      assert.equal(mayBePoisoned(text), true, text);
    }
  });
});

describe('detectFormat', () => {
  const code = (doc: unknown) => {
    try {
      detectFormat(doc);
      return 'ok';
    } catch (e) {
      return (e as AppError).code;
    }
  };
  it('names format and version, or says why not', () => {
    assert.deepEqual(detectFormat({ bomFormat: 'CycloneDX', specVersion: '1.7' }), {
      kind: 'cyclonedx',
      format: 'cyclonedx',
      specVersion: '1.7',
    });
    assert.deepEqual(detectFormat({ spdxVersion: 'SPDX-2.2' }), { kind: 'spdx2', format: 'spdx', specVersion: '2.2' });
    assert.deepEqual(detectFormat({ '@context': ['https://spdx.org/rdf/3.0.0/spdx-context.jsonld'] }), {
      kind: 'spdx3',
      format: 'spdx',
      specVersion: '3.0.0',
    });
    assert.equal(code({ bomFormat: 'CycloneDX', specVersion: 1.4 }), 'invalid_sbom');
    assert.equal(code({ bomFormat: 'CycloneDX', specVersion: '1.0' }), 'unsupported_sbom_format');
    assert.equal(code({ spdxVersion: 'SPDX-3.0' }), 'unsupported_sbom_format');
    assert.equal(code([]), 'unsupported_sbom_format');
  });
});

describe('normaliseCycloneDx', () => {
  it('hands each component to the sink as it walks, nested ones after their parent, and returns the release', () => {
    const doc = cycloneDx16(3);
    doc.components[0].components = [{ type: 'library', name: 'inner', version: ' 2 ', licenses: [{ expression: 'MIT OR Apache-2.0' }] }];
    const seen: string[] = [];
    const release = normaliseCycloneDx(doc, (c) => {
      seen.push(`${c.name}@${c.version}:${c.licenses.join('|')}`);
    });
    assert.deepEqual(release, { releaseVersion: '2.0.0', subjectCpes: null, buildVerdicts: [] });
    assert.deepEqual(seen, ['lib-0@1.0.0:MIT', 'inner@2:MIT OR Apache-2.0', 'lib-1@1.0.1:MIT', 'lib-2@1.0.2:MIT']);
    assert.equal(
      normaliseCycloneDx({ bomFormat: 'CycloneDX', specVersion: '1.6' }, () => assert.fail('no component')).releaseVersion,
      null,
    );
  });
});

describe('normaliseSpdx2', () => {
  it('treats DESCRIBES and DESCRIBED_BY relationships like documentDescribes', () => {
    const pkg = (id: string, version?: string) => ({
      SPDXID: id,
      name: id,
      versionInfo: version,
      licenseDeclared: 'MIT',
      licenseConcluded: 'NOASSERTION',
    });
    const doc = {
      packages: [pkg('SPDXRef-lib'), pkg('SPDXRef-app', '1.2'), pkg('SPDXRef-fw', '9')],
      relationships: [
        { spdxElementId: 'SPDXRef-DOCUMENT', relationshipType: 'DESCRIBES', relatedSpdxElement: 'SPDXRef-app' },
        { spdxElementId: 'SPDXRef-fw', relationshipType: 'DESCRIBED_BY', relatedSpdxElement: 'SPDXRef-DOCUMENT' },
      ],
    };
    const components: NormalisedComponent[] = [];
    assert.equal(normaliseSpdx2(doc, (c) => components.push(c)).releaseVersion, '1.2');
    assert.deepEqual(components, [
      { name: 'SPDXRef-lib', version: null, purl: null, type: null, licenses: ['MIT'], ref: 'SPDXRef-lib', cpes: null },
    ]);
  });
});

describe('normaliseSpdx3 on lists of any length', () => {
  const spdx3 = (nodes: object[], roots: string[]) =>
    Buffer.from(
      JSON.stringify({
        '@context': 'https://spdx.org/rdf/3.0.1/spdx-context.jsonld',
        '@graph': [
          { type: 'CreationInfo', '@id': '_:ci', created: '2026-01-01T00:00:00Z', specVersion: '3.0.1', createdBy: ['urn:x'] },
          { type: 'SpdxDocument', spdxId: 'urn:doc', creationInfo: '_:ci', rootElement: roots },
          { type: 'software_Package', spdxId: 'urn:root', creationInfo: '_:ci', name: 'fw', software_packageVersion: '3.3' },
          { type: 'software_Package', spdxId: 'urn:a', creationInfo: '_:ci', name: 'a', software_packageVersion: '1' },
          ...['MIT', 'Apache-2.0'].map((expression, i) => ({
            type: 'simplelicensing_LicenseExpression',
            spdxId: `urn:lic${i}`,
            creationInfo: '_:ci',
            simplelicensing_licenseExpression: expression,
          })),
          ...nodes,
        ],
      }),
    );
  const relationship = (i: number, to: string[]) => ({
    type: 'Relationship',
    spdxId: `urn:r${i}`,
    creationInfo: '_:ci',
    from: 'urn:a',
    relationshipType: 'hasDeclaredLicense',
    to,
  });

  it('reads a million root elements and a relationship to a million licences (spread into arguments, they overflowed the stack: a 500)', () => {
    const to = Array.from({ length: 1_000_000 }, (_, i) => `urn:lic${i % 2}`);
    const reading = readSbomBytes(spdx3([relationship(0, to)], Array(1_000_000).fill('urn:root')));
    assert.equal(reading.releaseVersion, '3.3');
    assert.equal(reading.count, 1);
    assert.equal(componentFields(textAt(reading, 0)).licenses, '["MIT","Apache-2.0"]');
  });

  it('gathers 200,000 licence relationships of one package in linear time (copying its list at each was quadratic: minutes)', {
    timeout: 120_000,
  }, () => {
    const nodes = Array.from({ length: 200_000 }, (_, i) => relationship(i, [`urn:lic${(i >> 1) % 2}`]));
    const reading = readSbomBytes(spdx3(nodes, ['urn:root']));
    assert.equal(reading.count, 1);
    assert.equal(componentFields(textAt(reading, 0)).licenses, '["MIT","Apache-2.0"]');
  });
});
