// NVD records generated in the shape of the NVD's CVE API 2.0 (docs/benchmarks.md, the firmware
// rows): the fields the NVD fills and their proportions as the public mirror shows them — status
// (most `Analyzed` or `Modified`, a tenth still awaiting analysis and so without configurations,
// about 1 % `Rejected`), two descriptions, a primary and a secondary CVSS, weaknesses, a few
// configurations whose `cpeMatch` entries carry version ranges over real and generated products,
// some of them an AND of an application and the platform it runs on, one in fifty with a hundred
// entries and more (as the Linux kernel's), twelve references: about 5 KB a record (the NVD's
// ~2 GB for ~300,000 is nearer 7 KB: its descriptions and references are longer). Written as
// the NVD's 2.0 feed files, one `nvdcve-2.0-YEAR.json.gz` per year, as an operator downloads them.
//
// The products: the vendor table's real pairs (busybox, openssl, the Linux kernel …), so that a
// firmware SBOM of them finds records, and 20,000 generated vendor:product pairs beside them.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { VENDOR_TABLE_ROWS } from '../dist/vulns/match/cpe/vendor-table-data.js';

/** A small deterministic PRNG (mulberry32), so every run imports the same records. */
export function random(seed) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The real products ({part, vendor, product}) of the vendor table, then generated ones. */
export const REAL_PRODUCTS = Object.values(VENDOR_TABLE_ROWS).flatMap((row) =>
  row.cpes.map((pair) => {
    const [vendor, product] = pair.split(':');
    return { part: row.part, vendor, product };
  }),
);
const GENERATED_PRODUCTS = 20_000;
export function productOf(i) {
  if (i < REAL_PRODUCTS.length) return REAL_PRODUCTS[i];
  const n = i - REAL_PRODUCTS.length;
  return { part: 'a', vendor: `vendor${n % 5_000}`, product: `product_${n}` };
}
const PRODUCT_COUNT = REAL_PRODUCTS.length + GENERATED_PRODUCTS;
/** A product of the record: a third of the records name a real (firmware) product. */
const pick = (r) => productOf(r() < 0.33 ? Math.floor(r() * REAL_PRODUCTS.length) : Math.floor(r() * PRODUCT_COUNT));

export const versionOf = (r) => `${Math.floor(r() * 6)}.${Math.floor(r() * 20)}.${Math.floor(r() * 30)}`;
const hex = (r, n) =>
  Array.from({ length: n }, () => Math.floor(r() * 16).toString(16))
    .join('')
    .toUpperCase();
const uuid = (r) => `${hex(r, 8)}-${hex(r, 4)}-${hex(r, 4)}-${hex(r, 4)}-${hex(r, 12)}`;
const LOREM =
  'A flaw was found in the handling of crafted input by the affected component, which allows a remote attacker to cause a denial of service or possibly execute arbitrary code. ';
const VECTOR = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H';

function cvss(source, type) {
  return {
    source,
    type,
    cvssData: {
      version: '3.1',
      vectorString: VECTOR,
      baseScore: 9.8,
      baseSeverity: 'CRITICAL',
      attackVector: 'NETWORK',
      attackComplexity: 'LOW',
      privilegesRequired: 'NONE',
      userInteraction: 'NONE',
      scope: 'UNCHANGED',
      confidentialityImpact: 'HIGH',
      integrityImpact: 'HIGH',
      availabilityImpact: 'HIGH',
    },
    exploitabilityScore: 3.9,
    impactScore: 5.9,
  };
}

/** A `cpeMatch` entry over one product: a range (most), or one version, or every version. */
function entry(r, p, vulnerable = true) {
  const criteria = (version) => `cpe:2.3:${p.part}:${p.vendor}:${p.product}:${version}:*:*:*:*:*:*:*`;
  const kind = r();
  if (!vulnerable) return { vulnerable, criteria: criteria('-'), matchCriteriaId: uuid(r) };
  if (kind < 0.7) {
    const start = r() < 0.5 ? { versionStartIncluding: versionOf(r) } : {};
    return { vulnerable, criteria: criteria('*'), ...start, versionEndExcluding: versionOf(r), matchCriteriaId: uuid(r) };
  }
  if (kind < 0.97) return { vulnerable, criteria: criteria(versionOf(r)), matchCriteriaId: uuid(r) };
  return { vulnerable, criteria: criteria('*'), matchCriteriaId: uuid(r) };
}

function configurations(r) {
  const out = [];
  const count = 1 + Math.floor(r() * 2);
  for (let c = 0; c < count; c++) {
    const p = pick(r);
    // Most name a few ranges; one in fifty many (the Linux kernel's records list hundreds).
    const length = r() < 0.02 ? 50 + Math.floor(r() * 150) : 1 + Math.floor(r() * 5);
    const entries = Array.from({ length }, () => entry(r, p));
    if (r() < 0.15) {
      // An application on a platform: the platform's term is not vulnerable itself.
      const platform = {
        part: r() < 0.5 ? 'o' : 'h',
        vendor: `platform${Math.floor(r() * 300)}`,
        product: `model_${Math.floor(r() * 3_000)}`,
      };
      out.push({
        operator: 'AND',
        nodes: [
          { operator: 'OR', negate: false, cpeMatch: entries },
          { operator: 'OR', negate: false, cpeMatch: [entry(r, platform, false)] },
        ],
      });
    } else out.push({ nodes: [{ operator: 'OR', negate: false, cpeMatch: entries }] });
  }
  return out;
}

/** The `cve` object of record `i` (its year from `i`). */
export function generatedNvdRecord(i, r = random(i + 7)) {
  const year = 2002 + (i % 24);
  const id = `CVE-${year}-${String(100_000 + i).padStart(6, '0')}`;
  const status = r();
  const vulnStatus = status < 0.01 ? 'Rejected' : status < 0.11 ? 'Awaiting Analysis' : status < 0.3 ? 'Modified' : 'Analyzed';
  const date = `${year}-0${1 + (i % 9)}-1${i % 10}T10:15:${String(i % 60).padStart(2, '0')}.000`;
  const record = {
    id,
    sourceIdentifier: 'cve@mitre.org',
    published: date,
    lastModified: date,
    vulnStatus,
    cveTags: [],
    descriptions: [
      {
        lang: 'en',
        value: vulnStatus === 'Rejected' ? 'Rejected reason: this candidate was withdrawn.' : LOREM.repeat(2 + Math.floor(r() * 4)),
      },
      { lang: 'es', value: 'Se encontró una falla en el manejo de entradas manipuladas.' },
    ],
    metrics:
      vulnStatus === 'Rejected' ? {} : { cvssMetricV31: [cvss('nvd@nist.gov', 'Primary'), cvss(`${uuid(r)}`.toLowerCase(), 'Secondary')] },
    weaknesses: [{ source: 'nvd@nist.gov', type: 'Primary', description: [{ lang: 'en', value: `CWE-${100 + Math.floor(r() * 800)}` }] }],
    references: Array.from({ length: 12 }, (_, k) => ({
      url: `https://security.example.org/advisories/${year}/${id}/details-and-patches-${k}.html`,
      source: 'cve@mitre.org',
      tags: k === 0 ? ['Vendor Advisory'] : ['Third Party Advisory'],
    })),
  };
  if (vulnStatus === 'Analyzed' || vulnStatus === 'Modified') record.configurations = configurations(r);
  return record;
}

/**
 * Writes `records` generated records as the NVD's yearly 2.0 feed files into `dir`; returns their
 * paths. Each year's file is built and compressed whole, as the NVD serves them (the largest,
 * for 300,000 records, is ~13,000 records).
 */
export function generatedNvdFeeds(dir, records) {
  mkdirSync(dir, { recursive: true });
  const years = new Map();
  for (let i = 0; i < records; i++) {
    const cve = generatedNvdRecord(i);
    const year = cve.id.slice(4, 8);
    if (!years.has(year)) years.set(year, []);
    years.get(year).push(JSON.stringify({ cve }));
  }
  const paths = [];
  for (const [year, items] of years) {
    const head = `{"resultsPerPage":${items.length},"startIndex":0,"totalResults":${items.length},"format":"NVD_CVE","version":"2.0","timestamp":"2026-11-28T00:00:00.000","vulnerabilities":[`;
    const path = join(dir, `nvdcve-2.0-${year}.json.gz`);
    writeFileSync(path, gzipSync(Buffer.from(`${head}${items.join(',')}]}`), { level: 1 }));
    paths.push(path);
  }
  return paths;
}
