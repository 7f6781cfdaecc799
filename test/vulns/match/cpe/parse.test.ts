import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type CpeMode, type CpeParse, parseCpe, parseFormattedString, parseUri } from '../../../../src/vulns/match/cpe/parse.js';
import { formatCpe, wfnString } from '../../../../src/vulns/match/cpe/wfn.js';
import { assertWfn, readFirmwareFixture, type WfnStrings, wfnFromStrings } from './vectors.js';

interface Vector {
  input: string;
  expected: WfnStrings | null;
}
interface GoCpe {
  unbindURI: Vector[];
  unbindFS: Vector[];
  unpack: Vector[];
  bindToFS: { wfn: WfnStrings; expected: string }[];
}
interface CpeParser {
  parse: (Vector & { mode: CpeMode })[];
  editions: { packed: string; expected: WfnStrings | null }[];
  roundTrip: string[];
}
interface Differences {
  parse: (Vector & { mode: CpeMode; why: string })[];
}

const goCpe = readFirmwareFixture<GoCpe>('cpe', 'go-cpe-vectors.json');
const cpeParser = readFirmwareFixture<CpeParser>('cpe', 'cpe-parser-vectors.json');
const differences = readFirmwareFixture<Differences>('cpe', 'known-differences.json');

function expectParse(result: CpeParse, expected: WfnStrings | null, context: string, all: boolean): void {
  if (expected === null) {
    assert.equal(result.ok, false, `${context} should not parse`);
    return;
  }
  assert.ok(result.ok, `${context}: ${result.ok ? '' : result.error}`);
  assertWfn(result.wfn, expected, context, all);
}

describe('CPE parsing against go-cpe (the NISTIR reference implementation in Go)', () => {
  it('unbinds 2.2 URIs: percent-encoding, %01 and %02 wildcards, packed editions, errors', () => {
    for (const { input, expected } of goCpe.unbindURI) expectParse(parseUri(input, 'strict'), expected, input, true);
    assert.equal(goCpe.unbindURI.length, 17);
  });

  it('unbinds 2.3 formatted strings: quoting, wildcards only at the ends, errors', () => {
    for (const { input, expected } of goCpe.unbindFS) expectParse(parseFormattedString(input, 'strict'), expected, input, true);
    assert.equal(goCpe.unbindFS.length, 8);
  });

  it('unpacks a 2.2 edition into the five 2.3 attributes', () => {
    for (const { input, expected } of goCpe.unpack)
      expectParse(parseUri(`cpe:/a:vendor:product:1.0::${input}`, 'strict'), expected, input, false);
  });

  it('binds a WFN to a formatted string', () => {
    for (const { wfn, expected } of goCpe.bindToFS) assert.equal(formatCpe(wfnFromStrings(wfn)), expected);
  });
});

describe('CPE parsing against CPE-Parser', () => {
  const differing = new Map(differences.parse.map((d) => [`${d.mode} ${d.input}`, d]));

  it('reads what its tests read, and refuses what they refuse', () => {
    for (const { mode, input, expected } of cpeParser.parse) {
      const ours = differing.get(`${mode} ${input}`);
      expectParse(parseCpe(input, mode), ours === undefined ? expected : ours.expected, `${mode} ${input}`, false);
    }
    assert.equal(cpeParser.parse.length, 30);
  });

  it('differs only where the spec reads a component CPE differently, each named', () => {
    const inputs = new Set(cpeParser.parse.map((v) => `${v.mode} ${v.input}`));
    for (const d of differences.parse) assert.ok(inputs.has(`${d.mode} ${d.input}`), `${d.input} is one of the vectors`);
    assert.equal(differences.parse.length, 6);
  });

  it('unpacks its editions', () => {
    for (const { packed, expected } of cpeParser.editions)
      expectParse(parseUri(`cpe:/a:vendor:product:1.0::${packed}`, 'strict'), expected, packed, false);
  });

  it('binds a parsed formatted string back to the same string', () => {
    for (const input of cpeParser.roundTrip) {
      const parsed = parseFormattedString(input, 'strict');
      assert.ok(parsed.ok);
      assert.equal(formatCpe(parsed.wfn), input);
    }
  });
});

describe('CPE parsing as the spec reads it', () => {
  const parsed = (text: string, mode: CpeMode = 'strict') => {
    const result = parseCpe(text, mode);
    assert.ok(result.ok, `${text}: ${result.ok ? '' : result.error}`);
    return result.wfn;
  };

  it('splits on unescaped colons only, and compares values case-insensitively once unescaped', () => {
    const wfn = parsed('cpe:2.3:a:Jenkins:Pipeline\\:Build_Step:1.0:*:*:*:*:*:*:*');
    assert.equal(wfnString(wfn.vendor), 'jenkins');
    assert.equal(wfnString(wfn.product), 'pipeline\\:build_step');
  });

  it('reads * as ANY and - as NA, and converts a 2.2 URI to the same WFN as its 2.3 string', () => {
    const uri = parsed('cpe:/a:denx:u-boot:2022.01:-');
    const fs = parsed('cpe:2.3:a:denx:u-boot:2022.01:-:*:*:*:*:*:*');
    assert.equal(formatCpe(uri), formatCpe(fs));
    assert.equal(uri.update.kind, 'na');
    assert.equal(uri.edition.kind, 'any');
  });

  it('reads a component CPE leniently: unquoted punctuation is literal, missing attributes are ANY', () => {
    const wfn = parsed('cpe:2.3:a:gnu:gcc+plugins:12.2.0+git!1~r0', 'lenient');
    assert.equal(wfn.product.kind === 'value' && wfn.product.text, 'gcc+plugins');
    assert.equal(wfn.version.kind === 'value' && wfn.version.text, '12.2.0+git!1~r0');
    assert.equal(wfn.update.kind, 'any');
    assert.equal(parseCpe('cpe:2.3:a:gnu:gcc+plugins:12.2.0', 'strict').ok, false);
  });

  it('reads the part-less, vendor-less CPEs Yocto writes', () => {
    const wfn = parsed('cpe:2.3:*:*:busybox:1.36.1:*:*:*:*:*:*:*', 'lenient');
    assert.equal(wfn.part.kind, 'any');
    assert.equal(wfn.vendor.kind, 'any');
  });

  it('refuses a wildcard inside a value in either mode, and any wildcard in a component', () => {
    assert.equal(parseCpe('cpe:2.3:a:busy*box:busybox:1.0:*:*:*:*:*:*:*', 'strict').ok, false);
    assert.equal(parseCpe('cpe:2.3:a:busybox:busybox:1.*:*:*:*:*:*:*:*', 'strict').ok, true);
    const component = parseCpe('cpe:2.3:a:busybox:busybox:1.*:*:*:*:*:*:*:*', 'lenient');
    assert.equal(component.ok, false);
    assert.match(component.ok ? '' : component.error, /version: an unquoted "\*" is a wildcard/);
  });

  it('explains what is wrong', () => {
    const cases: [string, RegExp][] = [
      ['cpe:2.3:a:vendor:product', /11 attributes, this one 3/],
      ['cpe:2.3:x:vendor:product:1:*:*:*:*:*:*:*', /part: "x" is none of a, o, h/],
      ['cpe:2.3:a:ven dor:product:1:*:*:*:*:*:*:*', /vendor: " " is not a printable ASCII character/],
      ['cpe:2.3:a:vendor:prod!uct:1:*:*:*:*:*:*:*', /product: "!" must be quoted/],
      ['cpe:2.3:a:vendor:product:1:*:*:*:*:*:*:x\\', /other: a backslash ends the value/],
      ['cpe:/a:vendor:product:1%4', /"%4" is not a percent-encoding/],
      ['pkg:npm/left-pad@1.0.0', /not a CPE name/],
    ];
    for (const [text, message] of cases) {
      const result = parseCpe(text, 'strict');
      assert.equal(result.ok, false, text);
      assert.match(result.ok ? '' : result.error, message, text);
    }
  });
});
