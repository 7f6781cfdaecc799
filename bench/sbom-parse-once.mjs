// What `sbom upload` does to parse a document, alone in a process: the file read, then the same
// reader (parse threads, detection, validation, normalisation, the conformance reports) with the
// slices dropped instead of stored. bench/sbom-check.mjs times it beside `cra-admin sbom check`.
import { readFile } from 'node:fs/promises';
import { createSbomReader } from '../dist/sbom/parse/sbom-reader.js';

const reader = createSbomReader();
const summary = await reader.read(await readFile(process.argv[2]), () => {}, { compress: false });
await reader.close();
process.stdout.write(`${summary.count}\n`);
