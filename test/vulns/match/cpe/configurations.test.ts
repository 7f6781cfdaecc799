import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { NvdConfiguration } from '../../../../src/vulns/match/cpe/configurations.js';
import type { NvdCpeMatch } from '../../../../src/vulns/match/cpe/criterion.js';
import { affected, component, evaluate, evidenceOf, nvdRecord } from './revision.js';

// Configurations as boolean trees: AND with the platform and the hardware, conditional findings,
// negate, and the component that satisfies only a `vulnerable: false` entry. Records the mirror
// holds are read from it; the others are written here, each saying what it stands for.

const entry = (criteria: string, vulnerable = true, range: Partial<NvdCpeMatch> = {}): NvdCpeMatch => ({ vulnerable, criteria, ...range });
const node = (cpeMatch: NvdCpeMatch[], extra: { operator?: string; negate?: boolean } = {}) => ({ operator: 'OR', cpeMatch, ...extra });

describe('CVE-2017-17215: Huawei HG532 firmware (version NA) AND the HG532 hardware', () => {
  const record = nvdRecord('CVE-2017-17215').configurations!;
  const firmware = component('firmware', 'cpe:2.3:o:huawei:hg532_firmware:V100R001C01B016:*:*:*:*:*:*:*');

  it('is conditional without the hardware, with both conditions', () => {
    const evidence = evidenceOf(evaluate(record, [firmware]), 'firmware')!;
    assert.equal(evidence.conditional, true);
    assert.equal(evidence.condition, 'the record names no version of huawei:hg532_firmware; only with cpe:2.3:h:huawei:hg532:-');
  });

  it('with the HG532 as the device, keeps only the condition no hardware can lift: the record names no version', () => {
    const evidence = evidenceOf(evaluate(record, [firmware], 'cpe:2.3:h:huawei:hg532:-:*:*:*:*:*:*:*'), 'firmware')!;
    assert.equal(evidence.conditional, true);
    assert.equal(evidence.condition, 'the record names no version of huawei:hg532_firmware');
  });

  it('is no finding when the device is another hardware model', () => {
    assert.deepEqual(evaluate(record, [firmware], 'cpe:2.3:h:huawei:hg531:-:*:*:*:*:*:*:*').findings, []);
  });

  it('is no finding for a firmware that says no version at all (version_missing)', () => {
    const bare = component('firmware', 'cpe:2.3:o:huawei:hg532_firmware:*:*:*:*:*:*:*:*');
    assert.deepEqual(evaluate(record, [bare], 'cpe:2.3:h:huawei:hg532:-:*:*:*:*:*:*:*').findings, []);
  });
});

describe('CVE-2023-1389: TP-Link Archer AX21 firmware before 1.1.4 AND the Archer AX21', () => {
  const record = nvdRecord('CVE-2023-1389').configurations!;
  const firmware = (version: string) => component(version, `cpe:2.3:o:tp-link:archer_ax21_firmware:${version}:*:*:*:*:*:*:*`);
  const ax21 = 'cpe:2.3:h:tp-link:archer_ax21:-:*:*:*:*:*:*:*';

  it('is asserted on an Archer AX21, conditional without the hardware, none on another model', () => {
    assert.deepEqual(affected(evaluate(record, [firmware('1.1.2'), firmware('1.1.4')], ax21)), ['1.1.2']);
    const open = evidenceOf(evaluate(record, [firmware('1.1.2')]), '1.1.2')!;
    assert.equal(open.condition, 'only with cpe:2.3:h:tp-link:archer_ax21:-');
    assert.deepEqual(evaluate(record, [firmware('1.1.2')], 'cpe:2.3:h:tp-link:archer_c7:5.0:*:*:*:*:*:*:*').findings, []);
  });

  it('lets a hardware component of the revision decide the term as the device does', () => {
    assert.deepEqual(affected(evaluate(record, [firmware('1.1.2'), component('board', ax21)])), ['1.1.2']);
  });

  it('lets a hardware component that is not the device decide only terms of its own model', () => {
    const other = component('chip', 'cpe:2.3:h:tp-link:archer_c7:5.0:*:*:*:*:*:*:*');
    assert.deepEqual(affected(evaluate(record, [firmware('1.1.2'), other])), ['1.1.2?']);
  });

  it('reads a hardware CPE with a version against the NVD NA as NISTIR 7696 does: not this one', () => {
    assert.deepEqual(evaluate(record, [firmware('1.1.2')], 'cpe:2.3:h:tp-link:archer_ax21:2.0:*:*:*:*:*:*:*').findings, []);
  });
});

describe('httpd running with OpenSSL 1.1.1 (the shape of CVE-2019-0190)', () => {
  const config: NvdConfiguration[] = [
    {
      operator: 'AND',
      nodes: [
        node([entry('cpe:2.3:a:apache:http_server:2.4.37:*:*:*:*:*:*:*')]),
        node([entry('cpe:2.3:a:openssl:openssl:1.1.1:*:*:*:*:*:*:*', false)]),
      ],
    },
  ];
  const httpd = component('httpd', 'cpe:2.3:a:apache:http_server:2.4.37:*:*:*:*:*:*:*');
  const openssl = (version: string) => component(`openssl ${version}`, `cpe:2.3:a:openssl:openssl:${version}:*:*:*:*:*:*:*`);

  it('affects httpd when OpenSSL 1.1.1 is in the revision, and never OpenSSL itself', () => {
    assert.deepEqual(affected(evaluate(config, [httpd, openssl('1.1.1')])), ['httpd']);
    assert.deepEqual(affected(evaluate(config, [openssl('1.1.1')])), []);
  });

  it('is conditional on OpenSSL 1.1.1 when the revision has no OpenSSL, and none with another OpenSSL', () => {
    assert.deepEqual(affected(evaluate(config, [httpd])), ['httpd?']);
    assert.equal(evidenceOf(evaluate(config, [httpd]), 'httpd')!.condition, 'only with cpe:2.3:a:openssl:openssl:1.1.1');
    assert.deepEqual(affected(evaluate(config, [httpd, openssl('1.0.2k')])), []);
    assert.deepEqual(affected(evaluate(config, [httpd, openssl('1.1.1a')])), []);
  });

  it('leaves the term open when the OpenSSL of the revision does not say its version', () => {
    const unknown = component('openssl', 'cpe:2.3:a:openssl:openssl:*:*:*:*:*:*:*:*');
    assert.deepEqual(affected(evaluate(config, [httpd, unknown])), ['httpd?']);
  });
});

describe('negate, OR and the component that matches no vulnerable entry', () => {
  const busybox = (ref: string, version: string) => component(ref, `cpe:2.3:a:busybox:busybox:${version}:*:*:*:*:*:*:*`);
  const notOnLinux: NvdConfiguration[] = [
    {
      operator: 'AND',
      nodes: [
        node([entry('cpe:2.3:a:busybox:busybox:*:*:*:*:*:*:*:*', true, { versionEndExcluding: '1.36.0' })]),
        node([entry('cpe:2.3:o:linux:linux_kernel:*:*:*:*:*:*:*:*', false)], { negate: true }),
      ],
    },
  ];

  it('reads a negated node: none with a Linux kernel, conditional on its absence without one', () => {
    const kernel = component('kernel', 'cpe:2.3:*:*:linux_kernel:6.1.38:*:*:*:*:*:*:*');
    assert.deepEqual(affected(evaluate(notOnLinux, [busybox('old', '1.35.0'), kernel])), []);
    const open = evidenceOf(evaluate(notOnLinux, [busybox('old', '1.35.0')]), 'old')!;
    assert.equal(open.condition, 'only without cpe:2.3:o:linux:linux_kernel');
  });

  it('reads a negated configuration', () => {
    const negated: NvdConfiguration[] = [{ ...notOnLinux[0]!, negate: true }];
    // NOT (busybox AND NOT linux): the busybox entry sits under a negation, so it affects nothing
    assert.deepEqual(affected(evaluate(negated, [busybox('old', '1.35.0')])), []);
  });

  it('affects only the component that satisfies the vulnerable entry, not its newer twin', () => {
    assert.deepEqual(affected(evaluate(notOnLinux, [busybox('old', '1.35.0'), busybox('new', '1.36.1')])), ['old?']);
  });

  it('marks a criterion without a version bound unbounded', () => {
    const any: NvdConfiguration[] = [{ nodes: [node([entry('cpe:2.3:a:busybox:busybox:*:*:*:*:*:*:*:*')])] }];
    const evidence = evidenceOf(evaluate(any, [busybox('b', '1.36.1')]), 'b')!;
    assert.deepEqual([evidence.unbounded, evidence.conditional, evidence.range], [true, false, null]);
  });

  it('names a term by its criterion and its range in words', () => {
    const onKernel: NvdConfiguration[] = [
      {
        operator: 'AND',
        nodes: [
          node([entry('cpe:2.3:a:busybox:busybox:1.35.0:*:*:*:*:*:*:*')]),
          node([
            entry('cpe:2.3:o:linux:linux_kernel:*:*:*:*:*:*:*:*', false, { versionStartIncluding: '5.10', versionEndExcluding: '5.15' }),
          ]),
        ],
      },
    ];
    const open = evidenceOf(evaluate(onKernel, [busybox('old', '1.35.0')]), 'old')!;
    assert.equal(open.condition, 'only with cpe:2.3:o:linux:linux_kernel (≥ 5.10, < 5.15)');
    const kernel = (version: string) => component('kernel', `cpe:2.3:o:linux:linux_kernel:${version}:*:*:*:*:*:*:*`);
    assert.deepEqual(affected(evaluate(onKernel, [busybox('old', '1.35.0'), kernel('5.10.180')])), ['old']);
    assert.deepEqual(affected(evaluate(onKernel, [busybox('old', '1.35.0'), kernel('6.1.38')])), []);
  });

  it('prefers bounded evidence to unbounded, and an exact CPE to an inferred one', () => {
    const twoWays: NvdConfiguration[] = [
      { nodes: [node([entry('cpe:2.3:a:busybox:busybox:*:*:*:*:*:*:*:*')])] },
      { nodes: [node([entry('cpe:2.3:a:busybox:busybox:*:*:*:*:*:*:*:*', true, { versionEndIncluding: '1.35.0' })])] },
    ];
    const both = component('b', ['cpe:2.3:*:*:busybox:1.35.0:*:*:*:*:*:*:*', 'cpe:2.3:a:busybox:busybox:1.35.0:*:*:*:*:*:*:*']);
    const evidence = evidenceOf(evaluate(twoWays, [both]), 'b')!;
    assert.deepEqual([evidence.unbounded, evidence.confidence, evidence.cpe_source], [false, 'exact', 'sbom']);
  });

  it('prefers an asserted finding to a conditional one across configurations', () => {
    const both: NvdConfiguration[] = [
      ...notOnLinux,
      { nodes: [node([entry('cpe:2.3:a:busybox:busybox:*:*:*:*:*:*:*:*', true, { versionEndIncluding: '1.35.0' })])] },
    ];
    const evidence = evidenceOf(evaluate(both, [busybox('old', '1.35.0')]), 'old')!;
    assert.deepEqual([evidence.conditional, evidence.range], [false, { end_including: '1.35.0' }]);
  });

  it('names criteria that do not parse, and leaves their term unknown, never true', () => {
    const broken: NvdConfiguration[] = [
      {
        operator: 'AND',
        nodes: [
          node([entry('cpe:2.3:a:busybox:busybox:1.35.0:*:*:*:*:*:*:*')]),
          node([entry('cpe:2.3:o:acme:os!:*:*:*:*:*:*:*:*', false)]),
        ],
      },
    ];
    const result = evaluate(broken, [busybox('old', '1.35.0')]);
    assert.deepEqual(affected(result), ['old?']);
    assert.deepEqual(result.unreadable, ['criteria "cpe:2.3:o:acme:os!:*:*:*:*:*:*:*:*" do not parse: the term is unknown']);
  });

  it('reads an unknown operator as OR and says so', () => {
    const odd: NvdConfiguration[] = [{ operator: 'XOR', nodes: [node([entry('cpe:2.3:a:busybox:busybox:1.35.0:*:*:*:*:*:*:*')])] }];
    const result = evaluate(odd, [busybox('old', '1.35.0')]);
    assert.deepEqual(affected(result), ['old']);
    assert.deepEqual(result.unreadable, ['configuration 0: operator "XOR" is neither AND nor OR (read as OR)']);
  });
});

describe('attributes beyond the version', () => {
  const android = [{ nodes: [node([entry('cpe:2.3:a:acme:player:*:*:*:*:*:android:*:*', true, { versionEndExcluding: '2.0' })])] }];

  it("never reads a component's ANY target_sw as a match for the criterion's android", () => {
    assert.deepEqual(affected(evaluate(android, [component('p', 'cpe:2.3:a:acme:player:1.0:*:*:*:*:*:*:*')])), []);
    assert.deepEqual(affected(evaluate(android, [component('p', 'cpe:2.3:a:acme:player:1.0:*:*:*:*:android:*:*')])), ['p']);
    assert.deepEqual(affected(evaluate(android, [component('p', 'cpe:2.3:a:acme:player:1.0:*:*:*:*:ios:*:*')])), []);
  });
});
