import { VENDOR_TABLE_ROWS } from './vendor-table-data.js';

// The vendor table (firmware.md, "Which CPE a component has"): for a component CPE that names no
// vendor, as Yocto writes them (`cpe:2.3:*:*:busybox:1.36.1:…`), the (vendor, product) pairs and
// the part the NVD files that product under. A component's `*` vendor is never a wildcard: a
// product the table does not know leaves the component not matchable (`cpe_vendor_unknown`).
// The data (vendor-table-data.ts) is seeded from Buildroot's and OpenEmbedded-Core's own mappings,
// each entry naming the line it comes from.

export type Part = 'a' | 'o' | 'h';

export interface VendorEntry {
  part: Part;
  /** The NVD's (vendor, product) pairs for this product name, e.g. curl → haxx:curl, haxx:libcurl. */
  pairs: readonly { vendor: string; product: string }[];
  /** Where each pair comes from: the build system's file and line. */
  sources: readonly string[];
}

/** How names are compared: lower case, runs of `-`, `_`, `.` and spaces as one `_` (u-boot = u_boot). */
export function normaliseProductName(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/[-_.\s]+/g, '_');
}

function load(): Map<string, VendorEntry> {
  const byName = new Map<string, VendorEntry>();
  for (const [name, raw] of Object.entries(VENDOR_TABLE_ROWS)) {
    const entry: VendorEntry = {
      part: raw.part,
      pairs: raw.cpes.map((pair) => {
        const [vendor, product] = pair.split(':') as [string, string];
        return { vendor, product };
      }),
      sources: raw.sources,
    };
    byName.set(normaliseProductName(name), entry);
  }
  return byName;
}

const ENTRIES = load();

/** The table's entry for a product name (a CPE's product, or a component's name), or null. */
export function lookupProduct(name: string): VendorEntry | null {
  return ENTRIES.get(normaliseProductName(name)) ?? null;
}

/** The part the table gives a (vendor, product) pair, or null when no entry lists that pair. */
export function partOfPair(vendor: string, product: string): Part | null {
  const [v, p] = [vendor.toLowerCase(), product.toLowerCase()];
  for (const entry of ENTRIES.values()) if (entry.pairs.some((pair) => pair.vendor === v && pair.product === p)) return entry.part;
  return null;
}

/** Every product name the table knows, normalised (for candidates and for the docs' count). */
export function knownProductNames(): string[] {
  return [...ENTRIES.keys()];
}
