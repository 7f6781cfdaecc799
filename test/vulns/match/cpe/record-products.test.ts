import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { productKey, productsNamed } from '../../../../src/vulns/match/cpe/record-products.js';
import { affected, component, evaluate, nvdRecord } from './revision.js';

describe('the products a record names', () => {
  it('lists the vendor:product of every criterion', () => {
    const { keys, everyProduct } = productsNamed(nvdRecord('CVE-2017-17215').configurations!);
    assert.deepEqual([...keys].sort(), ['huawei:hg532', 'huawei:hg532_firmware']);
    assert.equal(everyProduct, false);
  });

  it('says when a criterion names every vendor or product', () => {
    const config = [{ nodes: [{ cpeMatch: [{ vulnerable: true, criteria: 'cpe:2.3:a:*:busybox:*:*:*:*:*:*:*:*' }] }] }];
    assert.equal(productsNamed(config).everyProduct, true);
  });

  it('narrows a revision without changing what the record finds in it', () => {
    const record = nvdRecord('CVE-2017-17215').configurations!;
    const revision = [
      component('firmware', 'cpe:2.3:o:huawei:hg532_firmware:V100R001C01B016:*:*:*:*:*:*:*'),
      component('board', 'cpe:2.3:h:huawei:hg532:-:*:*:*:*:*:*:*'),
      component('busybox', 'cpe:2.3:a:busybox:busybox:1.36.1:*:*:*:*:*:*:*'),
      component('zlib', 'cpe:2.3:*:*:zlib:1.3:*:*:*:*:*:*:*'),
    ];
    const { keys } = productsNamed(record);
    const narrowed = revision.filter((c) => c.identities.some((id) => keys.has(productKey(id.wfn) ?? '')));
    assert.deepEqual(
      narrowed.map((c) => c.ref),
      ['firmware', 'board'],
    );
    assert.deepEqual(evaluate(record, narrowed), evaluate(record, revision));
    assert.deepEqual(affected(evaluate(record, narrowed)), ['firmware?']);
  });
});
