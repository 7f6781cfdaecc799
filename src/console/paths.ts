import { fileURLToPath } from 'node:url';

// Templates and assets stay in src/console (tsc copies no files); this module sits at the same
// depth in src/ and dist/, so the repository root is two levels up from either.
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const VIEWS_DIR = `${ROOT}src/console/views`;
export const ASSETS_DIR = `${ROOT}src/console/assets`;
